/**
 * Checks live response bodies against the schemas of the served openapi.json (JSON Schema 2020-12, via the ajv 8 that
 * @seriousme/openapi-schema-validator depends on; the top-level ajv is v6 and knows no 2020-12).
 */
import { createRequire } from 'node:module';

/** The slice of ajv 8's API used here (typed locally: the top-level `ajv` types are v6). */
interface ErrorObject {
  instancePath: string;
  message?: string;
}
type ValidateFunction = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

type AjvLike = {
  addSchema(schema: unknown, key: string): void;
  compile(schema: unknown): ValidateFunction;
};

const requireHere = createRequire(import.meta.url);
const requireFromValidator = createRequire(requireHere.resolve('@seriousme/openapi-schema-validator'));
const Ajv2020 = (requireFromValidator('ajv/dist/2020.js') as { default: new (opts: object) => AjvLike }).default;
const addFormats = (requireFromValidator('ajv-formats') as { default: (ajv: AjvLike) => void }).default;

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

  constructor(private readonly doc: { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>> }) {
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
      if (mediaType !== 'application/problem+json') return [`no schema for ${method} ${pathname} ${status} ${mediaType}`];
      ref = '/components/schemas/Problem';
    }
    const validate = this.validator(ref);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '(root)'} ${e.message ?? ''}`);
  }
}
