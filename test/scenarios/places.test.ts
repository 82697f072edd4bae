/**
 * The places scenario suite (scenarios/places.ts): every request in a person's words, over REST (GET /v1/attorneys,
 * bodies checked against openapi.json) and over MCP (find_injury_attorneys through the v1 SDK and v2 clients on the
 * real server), must give its stated outcome. Prints the first-call and within-two-calls success rates.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haversineMiles } from '../../shim/search/geo.ts';
import { request } from '../helpers/http.ts';
import { ResponseSchemas } from '../helpers/openapi.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { MISLEADING_MILES, SCENARIOS, type Args, type Outcome, type Scenario } from './places.ts';

type Json = Record<string, unknown>;
interface Location {
  lat: number;
  lng: number;
  state: string | null;
  note?: string;
}
interface Candidate {
  city: string;
  state: string;
  covered: boolean;
}
/** What one call answered, whichever channel carried it. */
type Answer =
  | { ok: true; covered: boolean; location: Location; results: unknown[] }
  | { ok: false; code: string | null; detail: string; candidates: Candidate[] | null };

interface ToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}
type CallTool = (args: Json) => Promise<ToolResult>;

let server: TestServer;
let schemas: ResponseSchemas;

beforeAll(async () => {
  server = await startTestServer();
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as ConstructorParameters<
    typeof ResponseSchemas
  >[0];
  schemas = new ResponseSchemas(doc);
});
afterAll(async () => {
  await server?.close();
});

function query(args: Args): string {
  return new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, String(v)])).toString();
}

async function viaRest(args: Args): Promise<Answer> {
  const reply = await request(server.url, `/v1/attorneys?${query(args)}`, {}, schemas);
  const body = reply.body as Json;
  if (reply.status === 200)
    return {
      ok: true,
      covered: body.covered as boolean,
      location: body.location as Location,
      results: body.results as unknown[],
    };
  expect(reply.status, JSON.stringify(body)).toBe(400);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return {
    ok: false,
    code: body.code as string,
    detail: body.detail as string,
    candidates: (body.candidates as Candidate[] | undefined) ?? null,
  };
}

async function viaMcp(call: CallTool, args: Args): Promise<Answer> {
  const result = await call(args as Json);
  const text = (result.content as { type: string; text: string }[] | undefined)?.[0]?.text ?? '';
  if (result.isError !== true) {
    const body = result.structuredContent as Json;
    return {
      ok: true,
      covered: body.covered as boolean,
      location: body.location as Location,
      results: body.results as unknown[],
    };
  }
  // The problem may travel as structuredContent too; the text always carries the detail.
  const problem = (result.structuredContent ?? {}) as Json;
  return {
    ok: false,
    code: (problem.code as string | undefined) ?? null,
    detail: text,
    candidates: (problem.candidates as Candidate[] | undefined) ?? null,
  };
}

/** The mismatches between an answer and the scenario's outcome (empty when it meets it). */
function check(s: Scenario, a: Answer, channel: 'rest' | 'mcp'): string[] {
  const e: Outcome = s.expect;
  const wrong: string[] = [];
  if ('resolved' in e) {
    const r = e.resolved;
    if (!a.ok) return [`expected an answer, got ${a.code ?? 'an error'}: ${a.detail}`];
    const miles = haversineMiles(a.location.lat, a.location.lng, r.near[0], r.near[1]);
    if (miles > r.miles) wrong.push(`resolved ${miles.toFixed(2)} mi from the place, allowed ${r.miles}`);
    if (a.location.state !== r.state) wrong.push(`state ${a.location.state}, expected ${r.state}`);
    if (r.covered !== undefined && a.covered !== r.covered) wrong.push(`covered ${a.covered}, expected ${r.covered}`);
    if (!a.covered && a.results.length !== 0) wrong.push('results on an uncovered answer');
    if (r.note !== undefined && !r.note.test(a.location.note ?? ''))
      wrong.push(`note ${JSON.stringify(a.location.note)} does not match ${r.note}`);
    return wrong;
  }
  if (a.ok) return [`expected a refusal, got an answer at ${a.location.lat},${a.location.lng} (${a.location.state})`];
  if ('abroad' in e) {
    if (channel === 'rest' || a.code !== null)
      if (a.code !== 'ambiguous_location' && a.code !== 'location_not_understood') wrong.push(`code ${a.code}`);
    if (!e.abroad.named.test(a.detail))
      wrong.push(`detail ${JSON.stringify(a.detail)} does not match ${e.abroad.named}`);
    if (!/outside the United States|not covered/.test(a.detail))
      wrong.push('the detail does not say it is outside the US');
    if (e.abroad.states !== undefined && (channel === 'rest' || a.candidates !== null)) {
      const states = (a.candidates ?? []).map((c) => c.state);
      if (JSON.stringify(states.slice(0, e.abroad.states.length)) !== JSON.stringify(e.abroad.states))
        wrong.push(`candidates ${states.join(' ')}`);
    }
    return wrong;
  }
  if ('ambiguous' in e) {
    if (channel === 'rest' || a.code !== null)
      if (a.code !== 'ambiguous_location') wrong.push(`code ${a.code}, expected ambiguous_location`);
    if (!/Ask the person which one/.test(a.detail)) wrong.push('the detail does not tell the caller to ask the person');
    if (channel === 'rest' || a.candidates !== null) {
      const states = (a.candidates ?? []).map((c) => c.state);
      if (JSON.stringify(states.slice(0, e.ambiguous.states.length)) !== JSON.stringify(e.ambiguous.states))
        wrong.push(`candidates ${states.join(' ')}`);
    }
    for (const st of e.ambiguous.states)
      if (!new RegExp(`, ${st} \\((?:not )?covered\\)`).test(a.detail))
        wrong.push(`the detail does not name the ${st} candidate`);
    return wrong;
  }
  if (channel === 'rest' || a.code !== null)
    if (a.code !== e.refused.code) wrong.push(`code ${a.code}, expected ${e.refused.code}`);
  if (!e.refused.fix.test(a.detail)) wrong.push(`detail ${JSON.stringify(a.detail)} does not match ${e.refused.fix}`);
  return wrong;
}

/**
 * Per channel: scenarios answered as expected on the first call (`answered`), useful on the first call (answered, or
 * a place abroad refused as such: that is the answer), useful within two calls (the refusal's fix or a candidate
 * followed), and misleading: an answer, or a suggestion followed, farther than MISLEADING_MILES from where the person is,
 * or any answer for a place abroad.
 */
interface Tally {
  answered: number;
  first: number;
  two: number;
  misleading: string[];
  total: number;
}
const tally = new Map<string, Tally>();

/** Where the person is, for the misleading check: `means`, else the expected point; null when unknown. */
function truth(s: Scenario): [number, number] | 'abroad' | null {
  if (s.means !== undefined) return s.means;
  return 'resolved' in s.expect ? s.expect.resolved.near : null;
}

/** Why an answer misleads the person, or null. */
function misleads(s: Scenario, a: Answer): string | null {
  const t = truth(s);
  if (!a.ok || t === null) return null;
  if (t === 'abroad') return `a place abroad answered as ${a.location.state}`;
  const miles = haversineMiles(a.location.lat, a.location.lng, t[0], t[1]);
  return miles > MISLEADING_MILES ? `answered ${miles.toFixed(0)} mi from where the person is` : null;
}

/** The location a refusal's "Did you mean" suggests first, or null. */
function suggested(a: Answer): string | null {
  return a.ok ? null : (/Did you mean "([^"]+)"/.exec(a.detail)?.[1] ?? null);
}

async function secondCall(s: Scenario, a: Answer): Promise<boolean> {
  if (a.ok) return true;
  const e = s.expect;
  // Asked which one, the person names a place: take the first candidate (from the problem body, else the detail).
  const named = /: ([^:;]+?), ([A-Z]{2}) \((?:not )?covered\)/.exec(a.detail);
  const first = a.candidates?.[0] ?? (named === null ? undefined : { city: named[1], state: named[2] });
  const next =
    'refused' in e
      ? e.refused.then
      : 'ambiguous' in e && first !== undefined
        ? `${first.city}, ${first.state}`
        : undefined;
  if (next === undefined) return false;
  const again = await viaRest({ location: next });
  return again.ok;
}

async function runAll(channel: string, ask: (args: Args) => Promise<Answer>): Promise<string[]> {
  const failures: string[] = [];
  const t: Tally = { answered: 0, first: 0, two: 0, misleading: [], total: 0 };
  for (const s of SCENARIOS) {
    const a = await ask(s.args);
    const wrong = check(s, a, channel === 'REST' ? 'rest' : 'mcp');
    if (wrong.length > 0) failures.push(`${s.says}: ${wrong.join('; ')}`);
    t.total++;
    const ok = wrong.length === 0;
    if (a.ok && ok) t.answered++;
    const useful = ok && (a.ok || 'abroad' in s.expect);
    if (useful) t.first++;
    if (useful || (ok && (await secondCall(s, a)))) t.two++;
    const misled = misleads(s, a);
    if (misled !== null) t.misleading.push(`${s.says}: ${misled}`);
    // A suggestion followed must not lead far from where the person is either.
    const next = suggested(a);
    if (next !== null) {
      const followed = await viaRest({ location: next });
      const far = misleads(s, followed);
      if (far !== null) t.misleading.push(`${s.says}: the suggestion ${JSON.stringify(next)} ${far}`);
    }
  }
  tally.set(channel, t);
  return failures;
}

/** The suite's bar on every channel: useful first 85%, within two 95%, nothing misleading. */
function meetsTheBar(channel: string): void {
  const t = tally.get(channel);
  expect(t).toBeDefined();
  if (t === undefined) return;
  expect(t.misleading).toEqual([]);
  expect(t.first / t.total).toBeGreaterThanOrEqual(0.85);
  expect(t.two / t.total).toBeGreaterThanOrEqual(0.95);
}

describe('places scenarios', () => {
  it('has at least 140 requests, each a different phrasing', () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(140);
    expect(new Set(SCENARIOS.map((s) => JSON.stringify(s.args))).size).toBe(SCENARIOS.length);
  });

  it('every scenario gets its outcome over REST', async () => {
    expect(await runAll('REST', viaRest)).toEqual([]);
    meetsTheBar('REST');
  });

  it('every scenario gets the same outcome over MCP, SDK v1 client', async () => {
    const client = new ClientV1({ name: 'places-scenarios-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${server.url}/mcp`)));
    try {
      const call: CallTool = (args) =>
        client.callTool({ name: 'find_injury_attorneys', arguments: args }) as Promise<ToolResult>;
      expect(await runAll('MCP (SDK v1)', (args) => viaMcp(call, args))).toEqual([]);
      meetsTheBar('MCP (SDK v1)');
    } finally {
      await client.close();
    }
  });

  it('every scenario gets the same outcome over MCP, v2 client', async () => {
    const client = new ClientV2({ name: 'places-scenarios-v2', version: '1.0.0' });
    await client.connect(new TransportV2(new URL(`${server.url}/mcp`)));
    try {
      const call: CallTool = (args) =>
        client.callTool({ name: 'find_injury_attorneys', arguments: args }) as Promise<ToolResult>;
      expect(await runAll('MCP (v2)', (args) => viaMcp(call, args))).toEqual([]);
      meetsTheBar('MCP (v2)');
    } finally {
      await client.close();
    }
  });

  afterAll(() => {
    for (const [channel, t] of tally) {
      const pct = (n: number): string => `${((100 * n) / t.total).toFixed(0)}%`;
      console.log(
        `places scenarios over ${channel}: ${t.total} requests, answered on the first call ${t.answered} (${pct(t.answered)}), ` +
          `useful on the first call ${t.first} (${pct(t.first)}), useful within two calls ${t.two} (${pct(t.two)}), ` +
          `misleading ${t.misleading.length}`,
      );
    }
  });
});
