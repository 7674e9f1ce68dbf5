// Every example in every bundle validates against its own schema (request bodies, responses,
// parameters, webhooks, schema-level `examples`). A failing example is a spec bug.
import { describe, expect, it } from 'vitest';
import { collectExamples, decodeForm, loadBundle, SpecValidator } from '../src/index.js';

for (const name of ['platform', 'site'] as const) {
  describe(`${name} spec examples`, () => {
    const validator = new SpecValidator(loadBundle(name));
    const examples = collectExamples(validator);

    it('has examples to check', () => {
      expect(examples.length).toBeGreaterThan(20);
    });

    it.each(examples.map((example) => [example.pointer, example] as const))('%s', (_, example) => {
      const value =
        example.mediaType === 'application/x-www-form-urlencoded' ? decodeForm(example.value) : example.value;
      expect(validator.validateAt(example.schemaPointer, value)).toEqual([]);
    });
  });
}
