/**
 * The scheme defaults of a pod spec, for Pods and for the pod templates of Jobs, as
 * k8s.io/kubernetes/pkg/apis/core/v1/defaults.go sets them (SetDefaults_PodSpec, _Container,
 * _ContainerPort) and as the v1 conversion writes the deprecated `serviceAccount`. Clients see them
 * in every answer (`kubectl get -o yaml`, server-side apply's merge, a diff against a manifest), so
 * a pod from the sim reads like one from kube-apiserver. Checked by the `Defaulting` conformance
 * cases on both backends.
 */
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function setDefault(target: Obj, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

/**
 * SetDefaults_Container's pull policy: `Always` for a `latest` tag or none (a tag-less name means
 * latest), else `IfNotPresent`; a digest without a tag pins the image (parsers.ParseImageName).
 */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > lastSlash ? name.slice(colon + 1) : at >= 0 ? '' : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function containerDefaults(container: Obj): void {
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  if (typeof container['image'] === 'string')
    setDefault(container, 'imagePullPolicy', defaultPullPolicy(container['image']));
  // A struct without a pointer in Go: always written, `{}` when empty.
  setDefault(container, 'resources', {});
  for (const port of Array.isArray(container['ports']) ? container['ports'] : []) {
    if (isObj(port)) setDefault(port, 'protocol', 'TCP');
  }
}

export function podSpecDefaults(spec: Obj): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of Array.isArray(spec[field]) ? spec[field] : [])
      if (isObj(c)) containerDefaults(c);
  }
  // The v1 form mirrors serviceAccountName into the deprecated serviceAccount.
  if (typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '')
    spec['serviceAccount'] = spec['serviceAccountName'];
}
