/** Checks live response bodies against the schemas of the served openapi.json (JSON Schema 2020-12, with ajv 8). */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its callable export sits on `.default`.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => void }).default;
type AjvLike = Ajv2020;

const DOC_ID = 'https://injury-attorney-directory.example/openapi.json';

/** The path template of the openapi document that serves `pathname`, or null. */
export function templateOf(pathname: string, paths: readonly string[]): string | null {
  for (const template of paths) {
    const re = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(pathname)) return template;
  }
  return null;
}

function pointer(...parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/** Validates bodies against one openapi document. */
export class ResponseSchemas {
  private readonly ajv: AjvLike;
  private readonly compiled = new Map<string, ValidateFunction>();
  /** (method path status) combinations seen live that the document does not describe. */
  readonly undocumented = new Set<string>();

  private readonly doc: {
    paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
  };
  constructor(doc: {
    paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
  }) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
  }

  private validator(ref: string): ValidateFunction {
    let fn = this.compiled.get(ref);
    if (fn === undefined) {
      fn = this.ajv.compile({ $ref: `${DOC_ID}#${ref}` });
      this.compiled.set(ref, fn);
    }
    return fn;
  }

  /**
   * Errors of `body` against the documented schema of (method, pathname, status, content type); an empty list when it
   * validates. A status the document does not list is recorded in `undocumented` and checked against Problem instead.
   */
  check(method: string, pathname: string, status: number, contentType: string | null, body: unknown): string[] {
    const template = templateOf(pathname, Object.keys(this.doc.paths));
    const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? '';
    const op = template === null ? undefined : this.doc.paths[template]?.[method.toLowerCase()];
    const response = op?.responses?.[String(status)];
    let ref: string;
    if (response?.content?.[mediaType] !== undefined && template !== null) {
      ref = `/${pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema')}`;
    } else {
      this.undocumented.add(`${method} ${template ?? pathname} ${status} ${mediaType}`);
      if (mediaType !== 'application/problem+json')
        return [`no schema for ${method} ${pathname} ${status} ${mediaType}`];
      ref = '/components/schemas/Problem';
    }
    const validate = this.validator(ref);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '(root)'} ${e.message ?? ''}`);
  }
}
