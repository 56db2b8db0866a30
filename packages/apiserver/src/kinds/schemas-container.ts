/** Schemas of core/v1 Container and what it references (ports, env, resources, probes, lifecycle). */
import type { SchemaDefinitions, SchemaObject } from '@kplane/api';
import {
  CORE, QUANTITY, atomicList, bool, enumStr, int32, int64, intOrString, mapList, obj, open, quantityMap, ref, refObj, str, strList,
} from './schema-dsl.js';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

/** The properties a Container and an EphemeralContainer share. */
function containerProperties(): Record<string, SchemaObject> {
  return {
    args: strList('Arguments to the entrypoint; the image\'s CMD is used when empty. $(VAR) references are expanded from the environment.'),
    command: strList('The entrypoint array, run without a shell; the image\'s ENTRYPOINT is used when empty.'),
    env: mapList(`${CORE}EnvVar`, 'Environment variables to set in the container.', ['name']),
    envFrom: atomicList(`${CORE}EnvFromSource`, 'Sources (ConfigMaps, Secrets) to populate environment variables from. Explicit env wins on duplicates.'),
    image: str('Container image name, e.g. "nginx:1.27".'),
    imagePullPolicy: enumStr('When to pull the image: Always, Never or IfNotPresent. Defaults to Always for :latest (or no tag), else IfNotPresent.', PULL_POLICIES),
    lifecycle: ref(`${CORE}Lifecycle`, 'Actions the system runs after the container starts and before it stops.'),
    livenessProbe: ref(`${CORE}Probe`, 'Periodic probe of liveness; the container is restarted when it fails.'),
    name: str('Name of the container, a DNS label unique within the pod. Cannot be updated.', { default: '' }),
    ports: {
      type: 'array',
      description: 'Ports to expose from the container. Informational; any port the process listens on is reachable.',
      items: refObj(`${CORE}ContainerPort`),
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'containerPort',
      'x-kubernetes-patch-strategy': 'merge',
    },
    readinessProbe: ref(`${CORE}Probe`, 'Periodic probe of readiness; the pod is removed from service endpoints while it fails.'),
    resizePolicy: atomicList(`${CORE}ContainerResizePolicy`, 'How the container is resized in place.'),
    resources: refObj(`${CORE}ResourceRequirements`, 'Compute resources (CPU, memory) the container requests and is limited to.'),
    restartPolicy: str('Per-container restart policy; only "Always" for init containers (sidecars).'),
    securityContext: ref(`${CORE}SecurityContext`, 'Security options for the container, overriding the pod\'s.'),
    startupProbe: ref(`${CORE}Probe`, 'Probe that must succeed before the other probes start.'),
    stdin: bool('Allocate a buffer for stdin in the container runtime.'),
    stdinOnce: bool('Close stdin after the first attach session ends.'),
    terminationMessagePath: str('File whose contents become the termination message. Defaults to /dev/termination-log.'),
    terminationMessagePolicy: enumStr('How the termination message is filled: File, or FallbackToLogsOnError.', ['FallbackToLogsOnError', 'File']),
    tty: bool('Allocate a TTY (needs stdin).'),
    volumeDevices: mapList(`${CORE}VolumeDevice`, 'Block devices to expose to the container.', ['devicePath']),
    volumeMounts: mapList(`${CORE}VolumeMount`, 'Pod volumes to mount into the container\'s filesystem.', ['mountPath']),
    workingDir: str('Working directory; the image\'s default when empty.'),
  };
}

const handlerProps = (): Record<string, SchemaObject> => ({
  exec: ref(`${CORE}ExecAction`, 'Run a command inside the container.'),
  httpGet: ref(`${CORE}HTTPGetAction`, 'Perform an HTTP GET.'),
  tcpSocket: ref(`${CORE}TCPSocketAction`, 'Open a TCP connection.'),
});

/** Container and its referenced schemas. */
export function containerDefinitions(): SchemaDefinitions {
  return {
    [`${CORE}Container`]: obj('A single application container run within a pod.', containerProperties(), { required: ['name'] }),
    [`${CORE}EphemeralContainer`]: obj(
      'A temporary container added to a running pod for debugging.',
      { ...containerProperties(), targetContainerName: str('Name of a container whose namespaces this one shares.') },
      { required: ['name'] },
    ),
    [`${CORE}ContainerPort`]: obj(
      'A network port of a container.',
      {
        containerPort: int32('Port number on the pod\'s IP address (1-65535).', { default: 0 }),
        hostIP: str('Host IP to bind the external port to.'),
        hostPort: int32('Port number on the host (1-65535). Most containers do not need it.'),
        name: str('An IANA_SVC_NAME, unique within the pod; services refer to it by name.'),
        protocol: enumStr('TCP, UDP or SCTP. Defaults to TCP.', ['SCTP', 'TCP', 'UDP'], { default: 'TCP' }),
      },
      { required: ['containerPort'] },
    ),
    [`${CORE}EnvVar`]: obj(
      'An environment variable.',
      {
        name: str('Name of the variable.', { default: '' }),
        value: str('Value, with $(VAR) references expanded. Defaults to "".'),
        valueFrom: ref(`${CORE}EnvVarSource`, 'Source of the value; cannot be used with value.'),
      },
      { required: ['name'] },
    ),
    [`${CORE}EnvVarSource`]: obj('Where an environment variable\'s value comes from.', {
      configMapKeyRef: ref(`${CORE}ConfigMapKeySelector`, 'A key of a ConfigMap.'),
      fieldRef: ref(`${CORE}ObjectFieldSelector`, 'A field of the pod: metadata.name, metadata.namespace, metadata.labels[\'<KEY>\'], spec.nodeName, status.podIP...'),
      resourceFieldRef: ref(`${CORE}ResourceFieldSelector`, 'A resource of a container: limits.cpu, requests.memory...'),
      secretKeyRef: ref(`${CORE}SecretKeySelector`, 'A key of a Secret in the pod\'s namespace.'),
    }),
    [`${CORE}ObjectFieldSelector`]: obj(
      'Selects a field of the pod.',
      {
        apiVersion: str('Version of the schema the path is written in. Defaults to "v1".'),
        fieldPath: str('Path of the field to select.', { default: '' }),
      },
      { required: ['fieldPath'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${CORE}ResourceFieldSelector`]: obj(
      'Selects a container resource.',
      {
        containerName: str('Container name; required for volumes.'),
        divisor: ref(QUANTITY, 'Output format of the exposed value. Defaults to "1".'),
        resource: str('Resource to select, e.g. limits.cpu.', { default: '' }),
      },
      { required: ['resource'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${CORE}ConfigMapKeySelector`]: obj(
      'Selects a key of a ConfigMap.',
      {
        key: str('The key to select.', { default: '' }),
        name: str('Name of the ConfigMap.', { default: '' }),
        optional: bool('Whether the ConfigMap or its key may be missing.'),
      },
      { required: ['key'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${CORE}SecretKeySelector`]: obj(
      'Selects a key of a Secret.',
      {
        key: str('The key to select.', { default: '' }),
        name: str('Name of the Secret.', { default: '' }),
        optional: bool('Whether the Secret or its key may be missing.'),
      },
      { required: ['key'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${CORE}EnvFromSource`]: obj('A set of environment variables from a ConfigMap or Secret.', {
      configMapRef: ref(`${CORE}ConfigMapEnvSource`, 'The ConfigMap to take variables from.'),
      prefix: str('A prefix added to every key; must be a C identifier.'),
      secretRef: ref(`${CORE}SecretEnvSource`, 'The Secret to take variables from.'),
    }),
    [`${CORE}ConfigMapEnvSource`]: obj(
      'A ConfigMap whose keys become environment variables.',
      { name: str('Name of the ConfigMap.', { default: '' }), optional: bool('Whether the ConfigMap may be missing.') },
      { 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${CORE}SecretEnvSource`]: obj(
      'A Secret whose keys become environment variables.',
      { name: str('Name of the Secret.', { default: '' }), optional: bool('Whether the Secret may be missing.') },
      { 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${CORE}ResourceRequirements`]: obj('Compute resource requests and limits.', {
      claims: { type: 'array', description: 'Names of pod resource claims this container uses.', items: refObj(`${CORE}ResourceClaim`), 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map' },
      limits: quantityMap('The maximum amount of each resource allowed, e.g. cpu: 500m, memory: 128Mi.'),
      requests: quantityMap('The minimum amount of each resource required; defaults to the limits when only limits are set.'),
    }),
    [`${CORE}ResourceClaim`]: obj('A reference to a pod resource claim.', { name: str('Name of the claim in pod.spec.resourceClaims.', { default: '' }), request: str('A request within the claim.') }, { required: ['name'] }),
    [`${CORE}ContainerResizePolicy`]: obj(
      'How a resource is resized in place.',
      { resourceName: str('cpu or memory.', { default: '' }), restartPolicy: str('NotRequired or RestartContainer.', { default: '' }) },
      { required: ['resourceName', 'restartPolicy'] },
    ),
    [`${CORE}VolumeMount`]: obj(
      'Mounts a pod volume into the container.',
      {
        mountPath: str('Path inside the container at which to mount; must not contain ":".', { default: '' }),
        mountPropagation: str('How mounts propagate between host and container: None, HostToContainer or Bidirectional.'),
        name: str('Name of a volume of the pod.', { default: '' }),
        readOnly: bool('Mount read-only. Defaults to false.'),
        recursiveReadOnly: str('Whether read-only mounts are recursive: Disabled, IfPossible or Enabled.'),
        subPath: str('Path within the volume to mount instead of its root.'),
        subPathExpr: str('Like subPath, with $(VAR) references expanded.'),
      },
      { required: ['name', 'mountPath'] },
    ),
    [`${CORE}VolumeDevice`]: obj(
      'Maps a raw block volume into the container.',
      { devicePath: str('Path of the device inside the container.', { default: '' }), name: str('Name of a PVC volume of the pod.', { default: '' }) },
      { required: ['name', 'devicePath'] },
    ),
    [`${CORE}Probe`]: obj('A health check run against a container.', {
      ...handlerProps(),
      failureThreshold: int32('Consecutive failures for the probe to count as failed. Defaults to 3.'),
      grpc: ref(`${CORE}GRPCAction`, 'Call a gRPC health check.'),
      initialDelaySeconds: int32('Seconds after the container started before probes begin.'),
      periodSeconds: int32('How often to probe, in seconds. Defaults to 10.'),
      successThreshold: int32('Consecutive successes for the probe to count as passed after a failure. Defaults to 1.'),
      terminationGracePeriodSeconds: int64('Grace period for the pod when this probe fails, overriding the pod\'s.'),
      timeoutSeconds: int32('Seconds after which the probe times out. Defaults to 1.'),
    }),
    [`${CORE}ExecAction`]: obj('Runs a command in the container; exit status 0 is success.', {
      command: strList('The command line, run without a shell.'),
    }),
    [`${CORE}HTTPGetAction`]: obj(
      'An HTTP GET; a status in 200-399 is success.',
      {
        host: str('Host to connect to; the pod IP by default.'),
        httpHeaders: atomicList(`${CORE}HTTPHeader`, 'Extra request headers.'),
        path: str('Path to request.'),
        port: intOrString('Port number or name on the container.'),
        scheme: enumStr('HTTP or HTTPS. Defaults to HTTP.', ['HTTP', 'HTTPS']),
      },
      { required: ['port'] },
    ),
    [`${CORE}HTTPHeader`]: obj('An HTTP header.', { name: str('Header name.', { default: '' }), value: str('Header value.', { default: '' }) }, { required: ['name', 'value'] }),
    [`${CORE}TCPSocketAction`]: obj(
      'Opens a TCP connection; success when it connects.',
      { host: str('Host to connect to; the pod IP by default.'), port: intOrString('Port number or name on the container.') },
      { required: ['port'] },
    ),
    [`${CORE}GRPCAction`]: obj(
      'Calls the gRPC health checking protocol.',
      { port: int32('Port of the gRPC service.', { default: 0 }), service: str('Service name sent in the HealthCheckRequest.', { default: '' }) },
      { required: ['port'] },
    ),
    [`${CORE}Lifecycle`]: obj('Actions run in response to container lifecycle events.', {
      postStart: ref(`${CORE}LifecycleHandler`, 'Runs right after the container is created; the container is restarted if it fails.'),
      preStop: ref(`${CORE}LifecycleHandler`, 'Runs before the container is terminated; counts against the termination grace period.'),
      stopSignal: str('The signal used to stop the container.'),
    }),
    [`${CORE}LifecycleHandler`]: obj('One lifecycle action: exactly one of exec, httpGet, tcpSocket or sleep.', {
      ...handlerProps(),
      sleep: ref(`${CORE}SleepAction`, 'Sleep for a while.'),
    }),
    [`${CORE}SleepAction`]: obj('Sleeps for a number of seconds.', { seconds: int64('Seconds to sleep.', { default: 0 }) }, { required: ['seconds'] }),
    [`${CORE}SecurityContext`]: open('Security options of a container: user and group ids, capabilities, privileged mode, read-only root filesystem, seccomp and SELinux settings.', {
      allowPrivilegeEscalation: bool('Whether a process can gain more privileges than its parent.'),
      capabilities: open('POSIX capabilities to add and drop.', { add: strList('Capabilities to add.'), drop: strList('Capabilities to drop.') }),
      privileged: bool('Run the container privileged.'),
      readOnlyRootFilesystem: bool('Mount the root filesystem read-only.'),
      runAsGroup: int64('GID to run the entrypoint as.'),
      runAsNonRoot: bool('Require the container to run as a non-root user.'),
      runAsUser: int64('UID to run the entrypoint as.'),
    }),
  };
}

