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

/** The parts of each plain answer whose headers nobody has looked at (and so changed) since it was made. */
const partsOf = new WeakMap<Response, PlainParts>();

/** The `headers` getter of Response (undici's, or the lightweight one that inherits from it). */
function headersGetter(response: Response): () => Headers {
  for (
    let proto: object | null = Object.getPrototypeOf(response);
    proto !== null;
    proto = Object.getPrototypeOf(proto)
  ) {
    const getter = Object.getOwnPropertyDescriptor(proto, 'headers')?.get;
    if (getter !== undefined) return getter as () => Headers;
  }
  throw new TypeError('Response has no headers getter');
}

/** A Response of `parts`, whose parts plainParts gives back until its headers are first read (and may be changed). */
export function plainResponse(parts: PlainParts): Response {
  const response = new Response(parts.body, { status: parts.status, headers: { ...parts.headers } });
  partsOf.set(response, parts);
  const getter = headersGetter(response);
  Object.defineProperty(response, 'headers', {
    configurable: true,
    get(this: Response): Headers {
      partsOf.delete(this);
      return getter.call(this);
    },
  });
  return response;
}

/** The parts of a Response plainResponse made, else undefined (also once its headers have been read). */
export function plainParts(response: Response): PlainParts | undefined {
  return partsOf.get(response);
}
