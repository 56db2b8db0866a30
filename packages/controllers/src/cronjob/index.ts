export { createCronJobController, type CronJobControllerOptions } from './controller.js';
export { createCronJobSync, jobFromTemplate, type SyncDeps, type SyncResult } from './sync.js';
export { compileSchedule, mostRecentScheduleTime, nextScheduleDelay, NEXT_SCHEDULE_DELTA_MS, type MissedSchedules, type MostRecent, type Schedule, type ScheduleState } from './schedule.js';
export { CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION, jobName } from './util.js';
