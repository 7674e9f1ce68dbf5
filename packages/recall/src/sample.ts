// The fixed sample: every mutant sorted by where it is and what it does, then a seeded shuffle. The same
// seed and the same sources give the same mutants on any machine; the default seed is written in the doc.
import type { Mutant } from './mutants.js';

export const DEFAULT_SAMPLE_SEED = 20261128;

/** mulberry32: a small seeded generator, enough to pick a sample that anyone can draw again. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const byPlace = (a: Mutant, b: Mutant) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.key.localeCompare(b.key);

/**
 * `size` mutants drawn with `seed`, in the order drawn: a run that stops early (its time budget) has judged
 * a smaller draw of the same seed, and a smaller `size` is a prefix of a larger one.
 */
export function sampleMutants(all: readonly Mutant[], size: number, seed: number): Mutant[] {
  const ordered = [...all].sort(byPlace);
  const random = seededRandom(seed);
  for (let i = ordered.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ordered[i], ordered[j]] = [ordered[j] as Mutant, ordered[i] as Mutant];
  }
  return ordered.slice(0, size);
}
