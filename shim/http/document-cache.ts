/**
 * Documents that depend only on the served version (and the request's base): coverage, changes, openapi, firms.
 * Each is shaped, serialised and hashed once per version, then served from its bytes with its ETag.
 */
import type { CallContext } from '../answer/service.ts';
import { encodeDocument, type EncodedDocument } from './caching.ts';

/** Documents kept at most; the oldest goes first (a version's handful of documents and its busiest firms). */
const MAX_DOCUMENTS = 256;

/** Encoded documents by version and name. */
export class DocumentCache {
  private readonly docs = new Map<string, EncodedDocument>();
  private readonly currentVersion: () => Promise<string>;

  /** `currentVersion`: the version being served now (Service.currentVersion). */
  constructor(currentVersion: () => Promise<string>) {
    this.currentVersion = currentVersion;
  }

  /**
   * The document `name` of the served version, made by `produce` on its first request. `name` must hold everything
   * else the document depends on (the listing id, the public base). The version is written to `ctx.read` either way.
   */
  async get(
    name: string,
    ctx: CallContext,
    produce: (ctx: CallContext) => Promise<unknown>,
    contentType?: string,
  ): Promise<EncodedDocument> {
    const version = await this.currentVersion();
    const known = this.docs.get(`${version}\u0000${name}`);
    const read = ctx.read ?? { version: null };
    if (known !== undefined) {
      read.version = version;
      return known;
    }
    const body = await produce({ ...ctx, read });
    const doc = encodeDocument(body, contentType);
    // A pointer that moved between the two reads: the document is of the version it read, kept under that one.
    const at = read.version ?? version;
    if (this.docs.size >= MAX_DOCUMENTS) this.docs.delete(this.docs.keys().next().value as string);
    this.docs.set(`${at}\u0000${name}`, doc);
    return doc;
  }
}
