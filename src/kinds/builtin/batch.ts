// batch/v1 Job and CronJob of a simulated cluster: kube's defaults (including the generated
// controller-uid selector and labels of a Job), printers and field selectors.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../store/types.js';
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import { validateWorkloadSelector } from './apps.js';
import {
  AGE,
  at,
  child,
  col,
  containerColumns,
  defaultPodTemplate,
  defaultPtr,
  defaultTo,
  formatSelector,
  isObj,
  list,
  num,
  spec,
  status,
  str,
} from './kube-helpers.js';

const GROUP = 'batch';

const hasCondition = (o: KubeObject, type: string) =>
  list(status(o).conditions).some((c) => c.type === type && c.status === 'True');

function jobStatus(o: KubeObject): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  return 'Running';
}

function jobCompletions(o: KubeObject): string {
  const sp = spec(o);
  const succeeded = num(status(o).succeeded);
  if (typeof sp.completions === 'number') return `${succeeded}/${sp.completions}`;
  const parallelism = num(sp.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function shortDuration(ms: number): string {
  const s = Math.max(0, Math.trunc(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.trunc(s / 60);
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  if (m < 180) return `${m}m`;
  const h = Math.trunc(m / 60);
  if (h < 8) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  if (h < 48) return `${h}h`;
  return `${Math.trunc(h / 24)}d`;
}

function jobDuration(o: KubeObject): string {
  const start = str(status(o).startTime);
  if (!start) return '';
  const end = str(status(o).completionTime);
  return shortDuration((end ? Date.parse(end) : Date.now()) - Date.parse(start));
}

/**
 * The Job strategy's generated selector: unless `manualSelector`, the pod template is labelled with the
 * Job's uid and name and the selector picks that uid. The uid is the one defaulting assigns.
 */
function generateJobSelector(obj: KubeObject, sp: Record<string, unknown>): void {
  if (sp.manualSelector === true) return;
  const uid = (obj.metadata.uid ||= randomUUID());
  const name = obj.metadata.name ?? '';
  const template = child(sp, 'template');
  const meta = child(template, 'metadata');
  const labels = child(meta, 'labels') as Record<string, string>;
  labels['batch.kubernetes.io/controller-uid'] = uid;
  labels['batch.kubernetes.io/job-name'] = name;
  labels['controller-uid'] = uid;
  labels['job-name'] = name;
  sp.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
}

export function defaultJob(obj: KubeObject): void {
  const sp = child(obj, 'spec');
  const templateLabels = at(sp, 'template', 'metadata', 'labels');
  if (isObj(templateLabels) && Object.keys(obj.metadata.labels ?? {}).length === 0)
    obj.metadata.labels = { ...(templateLabels as Record<string, string>) };
  if (sp.completions == null && sp.parallelism == null) {
    sp.completions = 1;
    sp.parallelism = 1;
  }
  defaultPtr(sp, 'parallelism', 1);
  defaultPtr(sp, 'backoffLimit', sp.backoffLimitPerIndex == null ? 6 : 2147483647);
  defaultPtr(sp, 'completionMode', 'NonIndexed');
  defaultPtr(sp, 'suspend', false);
  defaultPtr(sp, 'podReplacementPolicy', isObj(sp.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed');
  for (const rule of list(at(sp, 'podFailurePolicy', 'rules')))
    for (const c of list(rule.onPodConditions)) defaultTo(c, 'status', 'True');
  generateJobSelector(obj, sp);
  defaultPodTemplate(sp.template);
  obj.status = {};
}

export const Job: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'Job',
  plural: 'jobs',
  singular: 'job',
  namespaced: true,
  categories: ['all'],
  schema: protoSchema('batch.v1.Job'),
  subresources: { status: true },
  printerColumns: [
    col('Status', 'string', 'Status of the job.', jobStatus),
    col('Completions', 'string', 'The completion status of the job.', jobCompletions),
    col('Duration', 'string', 'Time required to complete the job.', jobDuration),
    AGE,
    ...containerColumns((o) => at(o, 'spec', 'template', 'spec')),
    col(
      'Selector',
      'string',
      'A label query over pods that should match the pod count.',
      (o) => formatSelector(spec(o).selector),
      1,
    ),
  ],
  selectableFields: { 'status.successful': (o) => String(num(status(o).succeeded)) },
  defaults: defaultJob,
  // With a generated selector the template labels are ours; only a manual one can mismatch.
  validate: (obj, old) =>
    spec(obj).manualSelector === true ? validateWorkloadSelector(obj, old, 'spec.template', true) : [],
};

export const CronJob: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  singular: 'cronjob',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  schema: protoSchema('batch.v1.CronJob'),
  subresources: { status: true },
  printerColumns: [
    col('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.', (o) =>
      str(spec(o).schedule),
    ),
    col(
      'Timezone',
      'string',
      'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.',
      (o) => str(spec(o).timeZone) || '<none>',
    ),
    col('Suspend', 'string', 'This flag tells the controller to suspend subsequent executions.', (o) =>
      typeof spec(o).suspend === 'boolean' ? (spec(o).suspend ? 'True' : 'False') : '<unset>',
    ),
    col(
      'Active',
      'integer',
      'A list of pointers to currently running jobs.',
      (o) => list(status(o).active).length,
    ),
    col(
      'Last Schedule',
      'string',
      'Information when was the last time the job was successfully scheduled.',
      (o) => {
        const last = str(status(o).lastScheduleTime);
        return last ? shortDuration(Date.now() - Date.parse(last)) : '<none>';
      },
    ),
    AGE,
    ...containerColumns((o) => at(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec')),
    col(
      'Selector',
      'string',
      'A label query over pods that should match the pod count.',
      (o) => formatSelector(at(o, 'spec', 'jobTemplate', 'spec', 'selector')),
      1,
    ),
  ],
  defaults(obj) {
    const sp = child(obj, 'spec');
    defaultTo(sp, 'concurrencyPolicy', 'Allow');
    defaultPtr(sp, 'suspend', false);
    defaultPtr(sp, 'successfulJobsHistoryLimit', 3);
    defaultPtr(sp, 'failedJobsHistoryLimit', 1);
    defaultPodTemplate(at(sp, 'jobTemplate', 'spec', 'template'));
    obj.status = {};
  },
};

export const batchKinds: readonly KindDefinition[] = [Job, CronJob];
