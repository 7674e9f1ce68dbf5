// The rules that judge one answer (or a pair of them), shared by the run's phases and by `replay`, so that
// a failure sent again is judged by the very rule that reported it.
import type { Answer } from '../client.js';

export const isSuccess = (status: number) => status >= 200 && status < 300;

/** A refusal: what a request breaking the schema (or a required header, or JSON itself) must get. */
export const isClientError = (status: number) => status >= 400 && status < 500;

/** The statuses that say "your request is malformed": a schema-valid request must not get them. */
export const MALFORMED_REQUEST = new Set([400, 415, 422]);

/** What differs between a HEAD's answer and its GET's (status, a body, the media type), if anything. */
export function headProblem(head: Answer, get: Answer): string | undefined {
  const type = (answer: Answer) => answer.headers.get('content-type')?.split(';')[0]?.trim();
  if (head.status !== get.status) return `HEAD answered ${head.status}, GET ${get.status}`;
  if (head.text.length > 0) return `HEAD answered with a body of ${head.text.length} characters`;
  if (get.status < 300 && type(head) !== type(get))
    return `HEAD's Content-Type ${type(head)} differs from GET's ${type(get)}`;
  return undefined;
}

/** What is wrong with a 405's Allow header, given the path's documented methods and the one refused. */
export function allowProblem(answer: Answer, documented: string[], refused: string): string | undefined {
  const header = answer.headers.get('allow');
  if (header === null) return `405 without an Allow header (documented: ${documented.join(', ')})`;
  const allowed = header.split(',').map((item) => item.trim().toUpperCase());
  const unnamed = documented.filter((method) => !allowed.includes(method));
  if (unnamed.length > 0) return `405 with Allow "${header}", not naming ${unnamed.join(', ')}`;
  if (allowed.includes(refused)) return `405 to ${refused} with Allow "${header}" naming ${refused}`;
  return undefined;
}
