/**
 * Fault injection for tests: `createFaults({ seed })` and its rules, from the one engine in
 * `@kplane/client/faults` (which the runtime's own tests use too). `faults.wrap` fits the test
 * control plane's `wrapTransport` option; `faults.attach(cp)` gives it the control plane's
 * restarts and leader loss.
 */
export {
  createFaults,
  describeRequest,
  formatRequest,
  requestMatches,
  WRITE_VERBS,
  type Amount,
  type ControlPlaneAction,
  type ControlPlaneActions,
  type FaultClock,
  type FaultEffect,
  type FaultRule,
  type FaultRuleSpec,
  type Faults,
  type FaultsOptions,
  type FaultTrigger,
  type FieldMatch,
  type InjectedErrorCode,
  type InjectedFault,
  type RequestInfo,
  type RequestMatch,
  type Verb,
  type WatchDrop,
} from '@kplane/client/faults';
