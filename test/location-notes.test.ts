/**
 * Every answer at a place's centre point (approximate: true) tells the model, in location.note, that distances are
 * measured from that point and not from a street address, over REST and MCP alike, in one sentence, never twice.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttorneysResponseT } from '../shim/contract/schemas.ts';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let client: Client;
beforeAll(async () => {
  server = await startTestServer();
  client = new Client({ name: 'location-notes', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const search = async (location: string): Promise<AttorneysResponseT> =>
  (await request(server.url, `/v1/attorneys?location=${encodeURIComponent(location)}&limit=1`))
    .body as AttorneysResponseT;

/** How many sentences of the note say where distances are measured from. */
const fromCount = (note: string): number => note.split(/(?<=\.) /).filter((s) => /distances are/i.test(s)).length;

describe('a city with its state', () => {
  it('says distances are from the centre point of the city, not the person, over REST', async () => {
    for (const [sent, place] of [
      ['Chicago, IL', 'Chicago, IL'],
      ['Chicago IL', 'Chicago, IL'],
      ['Austin, Texas', 'Austin, TX'],
      ['NYC', 'New York, NY'],
    ] as const) {
      const { location } = await search(sent);
      expect(location, sent).toMatchObject({ kind: 'city', approximate: true });
      expect(location.note, sent).toMatch(
        new RegExp(`Distances are from the centre point of ${place}, not from a street address`),
      );
      expect(fromCount(location.note ?? ''), sent).toBe(1);
      // One short sentence: the model relays it to a person.
      expect(location.note?.length ?? 0).toBeLessThan(200);
    }
  });

  it('says it once where another note already names the point (words around the place, a place inside a city)', async () => {
    for (const sent of ['downtown Chicago', 'Chicago, IL area', 'I-10 near Baytown, TX']) {
      const { location } = await search(sent);
      expect(location.approximate, sent).toBe(true);
      expect(fromCount(location.note ?? ''), `${sent}: ${location.note}`).toBe(1);
    }
  });

  it('carries the same note in the MCP answer, text and structured', async () => {
    const rest = (await search('Chicago, IL')).location.note as string;
    const result = await client.callTool({ name: 'find_injury_attorneys', arguments: { location: 'Chicago, IL' } });
    const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
    expect(text).toContain(`Location note: ${rest}`);
    expect((result.structuredContent as { location: { note?: string } }).location.note).toBe(rest);
  });
});

describe('an answer with no data for the place (covered: false)', () => {
  it('says nothing of where distances are measured from, since it has none, over REST and MCP', async () => {
    for (const sent of ['New Haven, CT', 'Muncie, IN', 'downtown New Haven, CT', 'Yale University, New Haven, CT']) {
      const body = (await request(server.url, `/v1/attorneys?location=${encodeURIComponent(sent)}&radius_miles=50`))
        .body as AttorneysResponseT;
      expect(body.covered, sent).toBe(false);
      expect(body.location.note ?? '', sent).not.toMatch(/distances|closer point/i);
      const result = await client.callTool({
        name: 'find_injury_attorneys',
        arguments: { location: sent, radius_miles: 50 },
      });
      const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
      expect(result.isError, sent).not.toBe(true);
      expect(text, sent).not.toMatch(/distances are|closer point/i);
    }
    // What the note says besides is kept: how "downtown New Haven" was read, what was not located.
    const loose = (await request(server.url, `/v1/attorneys?location=${encodeURIComponent('downtown New Haven, CT')}`))
      .body as AttorneysResponseT;
    expect(loose.location.note).toMatch(/^Read "downtown New Haven, CT" as New Haven, CT\.$/);
    const inside = (
      await request(server.url, `/v1/attorneys?location=${encodeURIComponent('Yale University, New Haven, CT')}`)
    ).body as AttorneysResponseT;
    expect(inside.location.note).toMatch(
      /^"Yale University" is not a place this service knows within \d+ mi of New Haven, CT\.$/,
    );
  });
});
