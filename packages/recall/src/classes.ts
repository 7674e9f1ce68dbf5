// The reviewed table of survivors (packages/recall/survivors.yaml): why a mutant no tool killed lives on,
// keyed by its stable description (file | mutator | original → replacement), not by its line or id.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { mutantKey } from './mutants.js';
import { recallRoot } from './paths.js';

export const SURVIVOR_CLASSES = [
  'a check we lack',
  'equivalent mutant',
  'not reachable through the API',
] as const;
export type SurvivorClass = (typeof SURVIVOR_CLASSES)[number];

export interface Classification {
  class: SurvivorClass;
  why: string;
}

interface Entry {
  file: string;
  mutator: string;
  original: string;
  replacement: string;
  class: SurvivorClass;
  why: string;
}

export const survivorsFile = join(recallRoot, 'survivors.yaml');

export function loadClassifications(file = survivorsFile): Map<string, Classification> {
  const entries = (parse(readFileSync(file, 'utf8')) as { survivors?: Entry[] } | null)?.survivors ?? [];
  const table = new Map<string, Classification>();
  for (const entry of entries) {
    if (!SURVIVOR_CLASSES.includes(entry.class)) {
      throw new Error(`${file}: "${entry.class}" is no class (${SURVIVOR_CLASSES.join(', ')})`);
    }
    table.set(mutantKey(entry), { class: entry.class, why: entry.why });
  }
  return table;
}
