/**
 * Answers made from bytes and a plain header record, with those parts kept beside the Response: the pipeline's last
 * step and the Node adapter add their headers to the record and hand on a new answer without reading the Response
 * back (on @hono/node-server's lightweight Response that is written to the socket from the record and bytes).
 */

/** The status, lower-case header record and body of a plain answer. */
export interface PlainParts {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Uint8Array | null;
}

/** Where a plain answer holds its parts, until its headers are first read (and so may have been changed). */
const PARTS = Symbol('plain parts');
type WithParts = Response & { [PARTS]?: PlainParts | undefined };

type ResponseClass = typeof Response;
let base: ResponseClass | null = null;
let PlainResponse: ResponseClass = Response;

/**
 * A subclass of the global Response as it is now (undici's, or @hono/node-server's lightweight one once its listener
 * has replaced it) whose headers getter forgets the parts: whoever reads the headers may change them.
 */
function plainClass(): ResponseClass {
  if (base !== globalThis.Response) {
    base = globalThis.Response;
    let getter: (() => Headers) | undefined;
    for (let proto: object | null = base.prototype; getter === undefined && proto !== null;) {
      getter = Object.getOwnPropertyDescriptor(proto, 'headers')?.get as (() => Headers) | undefined;
      proto = Object.getPrototypeOf(proto) as object | null;
    }
    const read = getter;
    if (read === undefined) throw new TypeError('Response has no headers getter');
    PlainResponse = class extends base {};
    Object.defineProperty(PlainResponse.prototype, 'headers', {
      configurable: true,
      get(this: WithParts): Headers {
        this[PARTS] = undefined;
        return read.call(this);
      },
    });
  }
  return PlainResponse;
}

/** A Response of `parts`, whose parts plainParts gives back until its headers are first read (and may be changed). */
export function plainResponse(parts: PlainParts): Response {
  const Plain = plainClass();
  const response: WithParts = new Plain(parts.body, { status: parts.status, headers: parts.headers });
  response[PARTS] = parts;
  return response;
}

/** The parts of a Response plainResponse made, else undefined (also once its headers have been read). */
export function plainParts(response: Response): PlainParts | undefined {
  return (response as WithParts)[PARTS];
}
