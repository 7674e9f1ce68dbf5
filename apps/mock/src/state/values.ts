// Values the mock makes for what it stores, from the schemas: new ids (an integer after every example's, a
// UUID where the schema says `format: uuid`, else one shaped like the example's: `ch_4f2a9d71c3` →
// `ch_` and ten fresh characters) and timestamps (now, in the first form the field's schema accepts).
import { randomInt, randomUUID } from 'node:crypto';
import type { SchemaAt, Schemas } from './schemas.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export class Values {
  /** The next integer id: one counter for the whole mock, so that no two tenants ever share an id. */
  private nextInteger = 1;

  constructor(private readonly schemas: Schemas) {}

  /** Integers at or below this are taken (the examples' ids). */
  reserve(id: unknown): void {
    if (typeof id === 'number' && Number.isInteger(id) && id >= this.nextInteger) this.nextInteger = id + 1;
  }

  /** A new id for an item: valid against the id's schema, never given before. */
  id(schema: SchemaAt | undefined, example: unknown): string | number {
    const type = schema ? this.schemas.type(schema) : typeof example === 'number' ? 'integer' : 'string';
    if (type === 'integer' || type === 'number') {
      const minimum = Number(schema && this.schemas.keyword(schema, 'minimum'));
      if (Number.isFinite(minimum) && this.nextInteger < minimum) this.nextInteger = minimum;
      const id = this.nextInteger;
      this.nextInteger += 1;
      return id;
    }
    if (schema && this.schemas.keyword(schema, 'format') === 'uuid') return randomUUID();
    if (typeof example === 'string') {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const shaped = shapedLike(example);
        if (!schema || this.schemas.valid(schema, shaped)) return shaped;
      }
    }
    return randomUUID();
  }

  /**
   * Now, as the schema (or a branch of it) writes a timestamp — in the example's form when it has one
   * (WordPress's dates carry no offset) — or undefined when the schema is not one of a timestamp.
   */
  timestamp(schema: SchemaAt, example: unknown, now = new Date()): string | undefined {
    // A field that takes any text is not a timestamp, whatever it takes.
    if (this.schemas.valid(schema, 'x')) return undefined;
    const iso = now.toISOString();
    const forms = [iso.replace(/\.\d+Z$/, 'Z'), iso, iso.slice(0, 19)];
    if (typeof example === 'string' && /T\d\d:\d\d:\d\d$/.test(example)) forms.unshift(iso.slice(0, 19));
    return forms.find((form) => this.schemas.valid(schema, form));
  }
}

/** The example's id with its last run of letters and digits made anew (at least ten characters long). */
function shapedLike(example: string): string {
  const match = /[A-Za-z0-9]+$/.exec(example);
  const prefix = match ? example.slice(0, match.index) : example;
  const length = Math.max(10, match?.[0].length ?? 0);
  let fresh = '';
  for (let i = 0; i < length; i += 1) fresh += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}${fresh}`;
}
