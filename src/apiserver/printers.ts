// Table columns and cells per kind: kube-apiserver's built-in printers for the kinds we serve, CRD-style
// columns from a kind's JSONPath printerColumns, and the default Name / Created At.
import type { KindDefinition, PrinterColumn } from '../kinds/types.js';
import type { KubeObject } from '../store/types.js';
import { isKubernetesGroup } from './discovery.js';
import { compileJsonPath } from './jsonpath.js';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  /** 0 always shown; 1 only with `-o wide`. */
  priority: number;
}

export interface TablePrinter {
  readonly columns: readonly TableColumnDefinition[];
  /**
   * One cell per column, in column order. Like the apiserver, wide (priority 1) cells are always
   * computed; kubectl hides them. `now` is epoch milliseconds, so ages are reproducible in tests.
   */
  cells(obj: KubeObject, now: number): unknown[];
}

const column = (
  name: string,
  description: string,
  extra: Partial<TableColumnDefinition> = {},
): TableColumnDefinition => ({
  name,
  type: 'string',
  format: '',
  description,
  priority: 0,
  ...extra,
});

const NAME_DESCRIPTION = 'Name of the object, unique within its namespace.';
const AGE_DESCRIPTION = 'Time since the object was created.';
const NAME = column('Name', NAME_DESCRIPTION, { format: 'name' });
const AGE = column('Age', AGE_DESCRIPTION);

// ---------------------------------------------------------------------------------------------------
// Durations and values, rendered as kube-apiserver renders them

/** apimachinery's HumanDuration: about two significant units ("5m", "2m3s", "3h10m", "4d", "2y10d"). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to a second in the future counts as now: clocks of client and server differ a little.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(seconds / 3600);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Age of a timestamp field; `<unknown>` when unset, like the apiserver's translateTimestampSince. */
export function ageOf(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

/** Go's `%v` for a float64: shortest digits, exponent form outside 1e-4 ≤ |v| < 1e6. */
function goFloat(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN';
  if (v === 0) return '0';
  const [mantissa, exp] = v.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(v);
}

/** Go's json.Marshal of decoded JSON: object keys sorted, `<`, `>`, `&` escaped. */
function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sorted);
    if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, sorted(o[k])]),
      );
    }
    return x;
  };
  return JSON.stringify(sorted(v))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A JSONPath result as a `string` column shows it (kubectl JSONPath printing). */
function asText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  return goJson(v);
}

/** The cell of a CRD-style column for the first value its JSONPath found (null = empty cell). */
export function cellForColumn(type: string, values: readonly unknown[], now: number): unknown {
  if (values.length === 0) return null;
  const v = values[0];
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'string':
      return asText(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      if (typeof v !== 'string') return null;
      if (v === '' || v === 'null') return '<unknown>';
      return RFC3339.test(v) ? humanDuration(now - Date.parse(v)) : '<invalid>';
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Printer kinds

/** Kubernetes' printer for kinds without one: Name and the creation time as RFC 3339 (kubectl shows it as is). */
export const DEFAULT_PRINTER: TablePrinter = {
  columns: [NAME, column('Created At', 'When the object was created.', { type: 'date' })],
  cells(obj) {
    const created = obj.metadata.creationTimestamp;
    const t = typeof created === 'string' ? Date.parse(created) : NaN;
    // metav1.Time formats the zero time when unset.
    const at = Number.isNaN(t) ? '0001-01-01T00:00:00Z' : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return [obj.metadata.name ?? '', at];
  },
};

/**
 * CRD semantics for our own kinds: Name, the declared JSONPath columns, then Age (a `date` column the
 * server renders as an age) unless one is declared. A column's JSONPath shows its first value only.
 */
export function columnPrinter(declared: readonly PrinterColumn[]): TablePrinter {
  const columns: TableColumnDefinition[] = [NAME];
  const finders: { type: string; find: (o: KubeObject) => unknown[] }[] = [];
  const all: readonly PrinterColumn[] = declared.some((c) => c.name === 'Age')
    ? declared
    : [
        ...declared,
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: AGE_DESCRIPTION },
      ];
  for (const c of all) {
    columns.push(
      column(c.name, c.description ?? `Value of ${c.jsonPath}.`, {
        type: c.type,
        format: c.format ?? '',
        priority: c.priority ?? 0,
      }),
    );
    const { value } = c;
    if (value) {
      // A computed cell is rendered like a JSONPath result of the column's type.
      finders.push({
        type: c.type,
        find: (o) => {
          // One odd object must not fail the whole listing: a throwing cell is empty, as a JSONPath error is.
          try {
            const v = value(o);
            return v === undefined ? [] : [v];
          } catch {
            return [];
          }
        },
      });
    } else {
      const path = compileJsonPath(c.jsonPath);
      finders.push({ type: c.type, find: (o) => path.find(o) });
    }
  }
  return {
    columns,
    cells(obj, now) {
      return [obj.metadata.name ?? '', ...finders.map((f) => cellForColumn(f.type, f.find(obj), now))];
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Built-in printers (kube-apiserver's, for the kinds we serve)

type Obj = Record<string, unknown>;
const field = (o: unknown, ...path: string[]): unknown => {
  let cur = o;
  for (const p of path) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
};
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const count = (v: unknown): number =>
  Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : 0;
const nameOf = (obj: KubeObject) => obj.metadata.name ?? '';
const age = (obj: KubeObject, now: number) => ageOf(obj.metadata.creationTimestamp, now);

function simple(
  columns: TableColumnDefinition[],
  cells: (obj: KubeObject, now: number) => unknown[],
): TablePrinter {
  return { columns, cells };
}

/** core/v1 Event and events.k8s.io/v1 Event print alike; the latter's fields are renamed. */
function eventPrinter(newApi: boolean): TablePrinter {
  return simple(
    [
      column('Last Seen', 'When the event last happened.'),
      column('Type', 'Normal or Warning.'),
      column('Reason', 'Short machine-readable reason.'),
      column('Object', 'The object the event is about.'),
      column('Subobject', 'The part of the object the event is about.', { priority: 1 }),
      column('Source', 'The component (and host) that reported the event.', { priority: 1 }),
      column('Message', 'Human-readable description.'),
      column('First Seen', 'When the event first happened.', { priority: 1 }),
      column('Count', 'How often the event happened.', { priority: 1 }),
      column('Name', NAME_DESCRIPTION, { priority: 1, format: 'name' }),
    ],
    (obj, now) => {
      const f = (legacy: string, renamed: string) => field(obj, newApi ? renamed : legacy);
      const first = f('firstTimestamp', 'deprecatedFirstTimestamp');
      let firstSeen = ageOf(first, now);
      if (typeof first !== 'string' || first === '') firstSeen = ageOf(field(obj, 'eventTime'), now);
      const last = f('lastTimestamp', 'deprecatedLastTimestamp');
      let lastSeen = typeof last === 'string' && last !== '' ? ageOf(last, now) : firstSeen;
      let times =
        typeof f('count', 'deprecatedCount') === 'number' ? (f('count', 'deprecatedCount') as number) : 0;
      const series = field(obj, 'series');
      if (series && typeof series === 'object') {
        lastSeen = ageOf(field(series, 'lastObservedTime'), now);
        times = typeof field(series, 'count') === 'number' ? (field(series, 'count') as number) : 0;
      } else if (times === 0) {
        times = 1; // singleton events carry no count in the new API
      }
      const involved = f('involvedObject', 'regarding');
      const kind = text(field(involved, 'kind')).toLowerCase();
      const involvedName = text(field(involved, 'name'));
      const component =
        text(field(f('source', 'deprecatedSource'), 'component')) || text(field(obj, 'reportingController'));
      const host =
        text(field(f('source', 'deprecatedSource'), 'host')) || text(field(obj, 'reportingInstance'));
      return [
        lastSeen,
        text(field(obj, 'type')),
        text(field(obj, 'reason')),
        involvedName ? `${kind}/${involvedName}` : kind,
        text(field(involved, 'fieldPath')),
        host ? `${component}, ${host}` : component,
        text(f('message', 'note')).trim(),
        firstSeen,
        times,
        nameOf(obj),
      ];
    },
  );
}

function bindingPrinter(): TablePrinter {
  return simple(
    [
      NAME,
      column('Role', 'The role granted: kind/name.'),
      AGE,
      column('Users', 'Users bound.', { priority: 1 }),
      column('Groups', 'Groups bound.', { priority: 1 }),
      column('ServiceAccounts', 'Service accounts bound, as namespace/name.', { priority: 1 }),
    ],
    (obj, now) => {
      const users: string[] = [];
      const groups: string[] = [];
      const sas: string[] = [];
      const subjects = field(obj, 'subjects');
      for (const s of Array.isArray(subjects) ? subjects : []) {
        const kind = text(field(s, 'kind'));
        if (kind === 'ServiceAccount') sas.push(`${text(field(s, 'namespace'))}/${text(field(s, 'name'))}`);
        else if (kind === 'User') users.push(text(field(s, 'name')));
        else if (kind === 'Group') groups.push(text(field(s, 'name')));
      }
      const roleRef = field(obj, 'roleRef');
      return [
        nameOf(obj),
        `${text(field(roleRef, 'kind'))}/${text(field(roleRef, 'name'))}`,
        age(obj, now),
        users.join(', '),
        groups.join(', '),
        sas.join(', '),
      ];
    },
  );
}

/**
 * Keyed by `group/Kind` (`/ConfigMap`, `rbac.authorization.k8s.io/RoleBinding`): exactly kube-apiserver's
 * columns and cells, so these win over a kind's `printerColumns`. Role and ClusterRole have no printer
 * there, hence the default Name / Created At.
 */
export const BUILTIN_PRINTERS: ReadonlyMap<string, TablePrinter> = new Map<string, TablePrinter>([
  [
    '/Namespace',
    simple([NAME, column('Status', 'The phase of the namespace.'), AGE], (o, now) => [
      nameOf(o),
      text(field(o, 'status', 'phase')),
      age(o, now),
    ]),
  ],
  [
    '/ConfigMap',
    simple([NAME, column('Data', 'Number of data and binaryData keys.'), AGE], (o, now) => [
      nameOf(o),
      count(field(o, 'data')) + count(field(o, 'binaryData')),
      age(o, now),
    ]),
  ],
  [
    '/Secret',
    simple(
      [NAME, column('Type', 'The secret type.'), column('Data', 'Number of data keys.'), AGE],
      (o, now) => [nameOf(o), text(field(o, 'type')), count(field(o, 'data')), age(o, now)],
    ),
  ],
  [
    '/ServiceAccount',
    simple([NAME, column('Secrets', 'Number of secrets listed.'), AGE], (o, now) => [
      nameOf(o),
      count(field(o, 'secrets')),
      age(o, now),
    ]),
  ],
  [
    'coordination.k8s.io/Lease',
    simple([NAME, column('Holder', 'Identity of the holder.'), AGE], (o, now) => [
      nameOf(o),
      text(field(o, 'spec', 'holderIdentity')),
      age(o, now),
    ]),
  ],
  ['/Event', eventPrinter(false)],
  ['events.k8s.io/Event', eventPrinter(true)],
  ['rbac.authorization.k8s.io/RoleBinding', bindingPrinter()],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', bindingPrinter()],
  ['rbac.authorization.k8s.io/Role', DEFAULT_PRINTER],
  ['rbac.authorization.k8s.io/ClusterRole', DEFAULT_PRINTER],
]);

/** A kind may bring its own printer (proposed KindDefinition field `printer`). */
export type PrintableKind = KindDefinition & { printer?: TablePrinter };

const resolved = new WeakMap<KindDefinition, TablePrinter>();

/**
 * The printer of a kind: its own `printer`; else kube-apiserver's built-in one; else CRD-style from
 * `printerColumns` (always for groups that are not Kubernetes', which get Name + Age like CRDs);
 * else Kubernetes' default Name / Created At.
 */
export function printerFor(def: PrintableKind): TablePrinter {
  let printer = resolved.get(def);
  if (!printer) {
    printer =
      def.printer ??
      BUILTIN_PRINTERS.get(`${def.group}/${def.kind}`) ??
      (def.printerColumns?.length || !isKubernetesGroup(def.group)
        ? columnPrinter(def.printerColumns ?? [])
        : DEFAULT_PRINTER);
    resolved.set(def, printer);
  }
  return printer;
}
