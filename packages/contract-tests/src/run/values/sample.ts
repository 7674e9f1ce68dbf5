import fc from 'fast-check';

/** The one value fast-check draws from `arbitrary` with `seed`. */
export function sampleOne<T>(arbitrary: fc.Arbitrary<T>, seed: number): T {
  const values = fc.sample(arbitrary, { numRuns: 1, seed });
  if (values.length === 0) throw new Error('fast-check drew no value');
  return values[0] as T;
}
