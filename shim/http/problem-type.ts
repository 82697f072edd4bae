/** Problem `type` URIs on the service itself: every problem answer's `type` is rewritten to {base}/problems/{code}. */
import { isProblemCode, problemTypeUri } from '../core/problem-pages.ts';

/** `response` with its problem body's `type` set to the page of its `code` under `publicBaseUrl`; other answers as they are. */
export async function withProblemType(response: Response, publicBaseUrl: string): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json') || response.body === null) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return new Response(text, { status: response.status, headers: response.headers });
  const problem = body as Record<string, unknown>;
  if (typeof problem.code === 'string' && isProblemCode(problem.code)) problem.type = problemTypeUri(publicBaseUrl, problem.code);
  return new Response(JSON.stringify(problem), { status: response.status, headers: response.headers });
}
