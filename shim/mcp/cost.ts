/** What an MCP POST costs against the rate limit: every tool call counts, also inside a JSON-RPC batch. */

/** Largest body inspected; the route itself refuses larger ones. */
const MAX_INSPECTED_BYTES = 64 * 1024;

/** Rate-limit units of an MCP request: the number of `tools/call` messages in its body, at least 1. Never throws. */
export async function mcpCallCount(request: Request): Promise<number> {
  let body: unknown;
  try {
    const text = await request.clone().text();
    if (text.length > MAX_INSPECTED_BYTES) return 1;
    body = JSON.parse(text);
  } catch {
    return 1;
  }
  if (!Array.isArray(body)) return 1;
  const calls = body.filter((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call').length;
  return Math.max(1, calls);
}
