// The data of the drift check: the route index it reads, the differences and absences it reports, its options.

import type { JsonObject, Operation } from '@platform-api/validator';

/** The parts of a route index the check reads (WordPress's `/wp-json/` answer). */
export interface RouteIndex {
  routes: Record<string, RouteIndexEntry>;
}

export interface RouteIndexEntry {
  namespace?: string;
  methods: string[];
  endpoints: Array<{ methods: string[]; args?: Record<string, JsonObject> }>;
}

export type DriftAspect =
  | 'method'
  | 'argument'
  | 'type'
  | 'enum'
  | 'default'
  | 'minimum'
  | 'maximum'
  | 'minItems'
  | 'maxItems'
  | 'required'
  | 'items.type'
  | 'items.enum';

export interface Difference {
  /** The spec's path template. */
  route: string;
  method: string;
  /** The argument, or undefined for a method difference. */
  argument?: string;
  aspect: DriftAspect;
  spec: unknown;
  target: unknown;
}

export interface ComparedRoute {
  template: string;
  targetRoute: string;
  methods: string[];
  argumentsCompared: number;
}

/** A spec element the target lacks, as the spec's version marks say it should. */
export interface ExpectedAbsence {
  route: string;
  method: string;
  argument?: string;
  /** The mark that explains it (`x-wp-since 6.7`, `x-wp-no-route`). */
  reason: string;
}

export interface DriftReport {
  compared: ComparedRoute[];
  differences: Difference[];
  /** What the target lacks because the spec marks it newer than the target or never served. */
  expected: ExpectedAbsence[];
  /** Target routes with no path in the spec. */
  notDescribed: string[];
  /** Spec paths the target does not offer, with what the spec says about them. */
  notOffered: Array<{ template: string; operations: Operation[] }>;
}

export interface DriftOptions {
  /** The spec's path templates are relative to this prefix of the target's routes ('' for WordPress). */
  routePrefix?: string;
  /**
   * The target's version (`6.1.9`). With it, arguments and operations marked `x-wp-since` a newer version
   * are expected to be absent, and `x-wp-before` schemas replace the described ones. Without it the target
   * is taken to be as current as the spec.
   */
  targetVersion?: string;
}
