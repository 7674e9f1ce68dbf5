// A walk: a script in another language or process drives a client — a generated client
// (packages/generator-matrix/test/walks), the service's Python SDK (pydomo_walk.py) or its Node SDK
// (domo_walk.cjs) in packages/contract-tests/test/sdk — through its calls against a server, and reports
// each call as a step, in one JSON line. The step's shape, said once here for every walk.

/** One call of a walk: its name, whether it succeeded, what it returned or the error it raised. */
export interface WalkStep {
  name: string;
  ok: boolean;
  /** What the call returned, as JSON, when it succeeded. */
  value?: unknown;
  /** The error's message, when it failed. */
  error?: string;
  /** The stack the language printed for the error (Python's traceback), when it reports one. */
  traceback?: string;
}
