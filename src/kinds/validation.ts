// Validates an incoming object against its kind: unknown fields (per fieldValidation: Strict, Warn,
// Ignore), schema types (422 naming each field), ObjectMeta rules and the kind's own checks.
import { FormatRegistry, type TObject } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import type { KubeObject } from '../store/types.js';
import { errors, type StatusCause } from '../util/errors.js';
import { validateObjectMeta } from './meta.js';
import type { KindDefinition } from './types.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => RFC3339.test(v));

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(value: string | null): FieldValidation {
  if (value === null || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw errors.badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got "${value}"`);
}

const compiled = new WeakMap<TObject, TypeCheck<TObject>>();

function checkerFor(schema: TObject): TypeCheck<TObject> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** `/rules/0/verbs` → `rules[0].verbs`. */
export function fieldPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out;
}

function valueAt(obj: unknown, pointer: string): unknown {
  let cur = obj;
  for (const raw of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

function deleteAt(obj: unknown, pointer: string): void {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = parts.pop();
  let cur = obj;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object') return;
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur !== null && typeof cur === 'object' && last !== undefined) Reflect.deleteProperty(cur, last);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function causeFor(error: ValueError): StatusCause {
  const field = fieldPath(error.path);
  const shown =
    typeof error.value === 'string' ? `"${error.value}"` : (JSON.stringify(error.value) ?? 'null');
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return { reason: 'FieldValueRequired', message: 'Required value', field };
    case ValueErrorType.String:
    case ValueErrorType.Integer:
    case ValueErrorType.Number:
    case ValueErrorType.Boolean:
    case ValueErrorType.Object:
    case ValueErrorType.Array: {
      const want = error.message.replace(/^Expected /, '');
      return {
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: ${describe(error.value)}: ${field} must be of type ${want}`,
        field,
      };
    }
    default:
      return { reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${error.message}`, field };
  }
}

export interface ValidationOutcome {
  /** Warnings for the `Warning` response header (fieldValidation=Warn). */
  warnings: string[];
}

/**
 * Checks `obj` in place: prunes unknown fields (or refuses them under Strict), then throws a 422 with
 * every schema, metadata and kind-specific problem. `old` is the stored object on updates.
 */
export function validateObject(
  def: KindDefinition,
  obj: KubeObject,
  mode: FieldValidation,
  old?: KubeObject,
): ValidationOutcome {
  const check = checkerFor(def.schema);
  const warnings: string[] = [];
  const unknown: string[] = [];
  const typeErrors: ValueError[] = [];
  // Check is the compiled fast path; walking Errors() costs several times more, so only for invalid input.
  if (!check.Check(obj))
    for (const error of check.Errors(obj)) {
      if (error.type === ValueErrorType.ObjectAdditionalProperties) unknown.push(error.path);
      else typeErrors.push(error);
    }
  if (unknown.length > 0) {
    const names = unknown.map((p) => `unknown field "${fieldPath(p)}"`);
    if (mode === 'Strict') {
      // kube-apiserver names the version alone here (`Deployment in version "v1"`), not group/version.
      throw errors.badRequest(
        `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${names.join(', ')}`,
      );
    }
    if (mode === 'Warn') warnings.push(...names);
    // Deepest first, so removing a parent never hides a child's path.
    for (const pointer of unknown.sort((a, b) => b.length - a.length)) deleteAt(obj, pointer);
  }
  const causes: StatusCause[] = [];
  // Errors inside a union repeat for every branch; report each field once.
  const seen = new Set<string>();
  for (const error of typeErrors) {
    if (
      seen.has(error.path) ||
      (valueAt(obj, error.path) === undefined && error.type !== ValueErrorType.ObjectRequiredProperty)
    )
      continue;
    seen.add(error.path);
    causes.push(causeFor(error));
  }
  if (causes.length === 0) {
    causes.push(...validateObjectMeta(obj, def.nameRule ?? 'dns1123-subdomain', def.namespaced));
    if (def.validate) causes.push(...def.validate(obj, old));
  }
  if (causes.length > 0) throw errors.invalid(def.kind, def.group, obj.metadata?.name ?? '', causes);
  return { warnings };
}
