// The named checks of a contract run (named after Schemathesis' where it has one). Each is documented
// here once; the CLI's --checks selects among them and the reports name them.

export const CHECKS = {
  not_a_server_error: 'No 5xx for any request, valid or not.',
  status_code_conformance: 'The status (or its 4XX range, or default) is documented for the operation.',
  content_type_conformance: 'The Content-Type is documented; no body where none is documented.',
  response_headers_conformance: 'Required response headers are present and match their schemas.',
  response_schema_conformance: 'The body matches the documented schema.',
  negative_data_rejection: 'A request that violates the schema is refused with a 4xx.',
  positive_data_acceptance: 'A schema-valid request is not refused as malformed (400, 415 or 422).',
  ignored_auth:
    'An operation that requires credentials refuses (no 2xx) a request without them and one with a wrong credential (a made-up bearer token; its own Basic user with a wrong secret).',
  ensure_resource_availability: 'A created resource can be read back through the links of its creation.',
  use_after_free: 'After a successful delete, reads answer 404/410 or the documented deleted form.',
  tenant_isolation: "Another tenant's client cannot read, change or delete a resource (403 or 404).",
  auth_scheme_case: 'The HTTP auth scheme is accepted in any letter case (bearer, BEARER; RFC 9110 §11.1).',
  empty_json_body:
    'An empty body sent with Content-Type: application/json to an operation without a body is ignored.',
  unsupported_media_type: 'A body of an undocumented media type is refused with 415.',
  unsupported_method: 'An undocumented method of a documented path is refused with 405.',
  allow_header_conformance:
    'A 405 carries an Allow header naming every documented method of the path (RFC 9110 §15.5.6).',
  missing_required_header: 'A request without one of its required header parameters is refused with a 4xx.',
  head_matches_get: 'HEAD answers with the status and headers of GET, and no body.',
  trailing_slash: 'A trailing slash is served as the path without it, redirected, or refused with a 4xx.',
  repeated_query_parameters: 'A repeated single-valued query parameter is used or refused with a 4xx.',
  oversized_body: 'A body larger than the server accepts is refused with 413.',
  malformed_json_body: 'A JSON body that is no JSON text (cut short, or not UTF-8) is refused with a 4xx.',
  site_scenario:
    'A scenario of the site suite holds: a walk through WordPress content (create, revise, trash, delete) or the drift check against the route index.',
  request_headers_conformance: 'A webhook delivery carries the documented headers.',
  request_body_conformance: 'A webhook delivery matches exactly one documented webhook and its schema.',
  max_response_time:
    'Every answer arrives within --max-response-time (checked, per operation, only when that budget is given).',
} as const;

export type CheckName = keyof typeof CHECKS;

export const CHECK_NAMES = Object.keys(CHECKS) as CheckName[];

/** The checks every response of a documented operation is held to. */
export const RESPONSE_CHECKS: readonly CheckName[] = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
];

export const PHASES = ['examples', 'coverage', 'fuzz', 'stateful', 'transport', 'webhooks'] as const;
export type PhaseName = (typeof PHASES)[number];

/** Named selections of phases and checks (`--profile`), for targets that cannot be held to all of them. */
export const PROFILES = {
  /**
   * A mock that keeps no state and takes any credential (Prism; the repository's mocks started with
   * `--stateless`; with memory they are held to everything): what it answers, held to the spec — not
   * what it remembers (no stateful or fuzz phase: created things are not there to read back), whom it lets
   * in (ignored_auth), what it accepts and refuses (a mock validates requests by rules of its own: add
   * `--checks` with negative_data_rejection for one that follows the spec), nor the HTTP details it answers
   * its own way (HEAD, 405, 413, a trailing slash, a repeated parameter, a foreign media type).
   */
  stateless: {
    phases: ['examples', 'coverage', 'transport'],
    checks: [...RESPONSE_CHECKS, 'auth_scheme_case', 'empty_json_body'],
  },
} as const satisfies Record<string, { phases: readonly PhaseName[]; checks: readonly CheckName[] }>;
export type ProfileName = keyof typeof PROFILES;

export function isCheckName(name: string): name is CheckName {
  return name in CHECKS;
}
