/**
 * Protobuf schema text for batch/v1 Job and CronJob (Kubernetes field numbers, JSON field
 * names; see schema-meta.ts for the `(ptr)` and `(inline)` field options). Pod failure and
 * success policies are not described and are skipped on decode.
 */
export const BATCH_V1_SCHEMA = `
syntax = "proto2";
package batch.v1;

message Job {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional JobSpec spec = 2;
}
message JobSpec {
  optional int32 parallelism = 1 [(ptr) = true];
  optional int32 completions = 2 [(ptr) = true];
  optional int64 activeDeadlineSeconds = 3 [(ptr) = true];
  optional int32 backoffLimit = 7 [(ptr) = true];
  optional int32 backoffLimitPerIndex = 12 [(ptr) = true];
  optional int32 maxFailedIndexes = 13 [(ptr) = true];
  optional .meta.v1.LabelSelector selector = 4 [(ptr) = true];
  optional bool manualSelector = 5 [(ptr) = true];
  optional .core.v1.PodTemplateSpec template = 6;
  optional int32 ttlSecondsAfterFinished = 8 [(ptr) = true];
  optional string completionMode = 9 [(ptr) = true];
  optional bool suspend = 10 [(ptr) = true];
  optional string podReplacementPolicy = 14 [(ptr) = true];
  optional string managedBy = 15 [(ptr) = true];
}
message JobTemplateSpec {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional JobSpec spec = 2;
}

message CronJob {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional CronJobSpec spec = 2;
}
message CronJobSpec {
  optional string schedule = 1;
  optional string timeZone = 8 [(ptr) = true];
  optional int64 startingDeadlineSeconds = 2 [(ptr) = true];
  optional string concurrencyPolicy = 3;
  optional bool suspend = 4 [(ptr) = true];
  optional JobTemplateSpec jobTemplate = 5;
  optional int32 successfulJobsHistoryLimit = 6 [(ptr) = true];
  optional int32 failedJobsHistoryLimit = 7 [(ptr) = true];
}
`;
