/**
 * batch/v1 CronJob on create and update: the defaults SetDefaults_CronJob fills in and the schedule,
 * time zone and job template checks of its validation, in the apiserver's words.
 */
import type { StatusCause } from './status-errors.js';
import type { KObject } from './types.js';
import { asObj } from './resource-hooks.js';
import { isTimeZone, parseCronSchedule } from './cron-schedule.js';

export function cronJobDefaults(cronJob: KObject): void {
  const spec = (cronJob.spec ??= {});
  spec['concurrencyPolicy'] ??= 'Allow';
  spec['suspend'] ??= false;
  spec['successfulJobsHistoryLimit'] ??= 3;
  spec['failedJobsHistoryLimit'] ??= 1;
}

const POLICIES = ['Allow', 'Forbid', 'Replace'];

export function cronJobValidate(cronJob: KObject): StatusCause[] {
  const spec = asObj(cronJob.spec);
  const causes: StatusCause[] = [];
  const schedule = spec['schedule'];
  if (typeof schedule !== 'string' || schedule === '') {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.schedule',
      message: 'Required value',
    });
  } else if (/^\s*(CRON_)?TZ=/.test(schedule)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.schedule',
      message: `Invalid value: ${JSON.stringify(schedule)}: cannot use TZ or CRON_TZ in schedule, use timeZone field instead`,
    });
  } else {
    const parsed = parseCronSchedule(schedule);
    if ('error' in parsed) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.schedule',
        message: `Invalid value: ${JSON.stringify(schedule)}: ${parsed.error}`,
      });
    }
  }
  const zone = spec['timeZone'];
  if (typeof zone === 'string' && !isTimeZone(zone)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.timeZone',
      message: `Invalid value: ${JSON.stringify(zone)}: unknown time zone ${zone}`,
    });
  }
  const policy = spec['concurrencyPolicy'];
  if (typeof policy !== 'string' || !POLICIES.includes(policy)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.concurrencyPolicy',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Allow", "Forbid", "Replace"`,
    });
  }
  const template = asObj(asObj(asObj(spec['jobTemplate'])['spec'])['template']);
  const restartPolicy = asObj(template['spec'])['restartPolicy'];
  if (restartPolicy !== 'Never' && restartPolicy !== 'OnFailure') {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.jobTemplate.spec.template.spec.restartPolicy',
      message: 'Required value: valid values: "OnFailure", "Never"',
    });
  }
  return causes;
}
