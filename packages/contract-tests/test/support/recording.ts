// A target that is a fetch: every request the client sends is recorded as `METHOD URL BODY` (bytes as hex,
// so that bodies that are no JSON text are compared too) and answered as `answer` says.
import { ContractClient, type SpecValidator } from '../../src/index.js';

export function recordingClient(
  validator: SpecValidator,
  answer: (method: string, url: URL) => Response,
): { client: ContractClient; sent: string[] } {
  const sent: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const body = init?.body;
    const text =
      typeof body === 'string' ? body : body instanceof Uint8Array ? Buffer.from(body).toString('hex') : '';
    const method = init?.method ?? 'GET';
    sent.push(`${method} ${String(input)} ${text}`);
    return answer(method, new URL(String(input)));
  };
  const client = new ContractClient({
    validator,
    baseUrl: 'http://target.invalid',
    credentials: { bearer: 'token', basic: { username: 'id', password: 'secret' } },
    fetch,
  });
  return { client, sent };
}
