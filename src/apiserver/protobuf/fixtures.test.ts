// Real request bodies captured from kubectl 1.35.2 and helm 4.1.4 (fixtures/*.hex) decode to exactly the JSON
// a JSON client would send: no Go zero values, no 1970 timestamps, no `type` on an untyped Secret.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { decodeProtobufBody, isProtobufContentType } from './index.js';

interface Fixture {
  command: string;
  request: string;
  contentType: string;
  body: Buffer;
}

/** Fixtures stay in the source tree; find it from the compiled file (dist/…) or the working directory. */
function fixtureDir(): string {
  const candidates = [
    fileURLToPath(new URL('../../../../src/apiserver/protobuf/fixtures', import.meta.url)),
    join(process.cwd(), 'src/apiserver/protobuf/fixtures'),
  ];
  const dir = candidates.find((d) => existsSync(join(d, 'kubectl-create-namespace.hex')));
  assert.ok(dir, `fixtures not found in ${candidates.join(' or ')}`);
  return dir;
}

function loadFixtures(): Map<string, Fixture> {
  const dir = fixtureDir();
  const out = new Map<string, Fixture>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.hex'))) {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n');
    const header = (key: string) =>
      lines.find((l) => l.startsWith(`# ${key}: `))?.slice(key.length + 4) ?? '';
    const hex = lines.filter((l) => l && !l.startsWith('#')).join('');
    out.set(file.replace(/\.hex$/, ''), {
      command: header('command'),
      request: header('request'),
      contentType: header('content-type'),
      body: Buffer.from(hex, 'hex'),
    });
  }
  return out;
}

const fixtures = loadFixtures();

function decode(name: string): Record<string, unknown> {
  const f = fixtures.get(name);
  assert.ok(f, `fixture ${name}`);
  assert.ok(isProtobufContentType(f.contentType), `${name} was sent as protobuf`);
  return decodeProtobufBody(f.body).object;
}

const core = (kind: string, rest: Record<string, unknown>) => ({ apiVersion: 'v1', kind, ...rest });
const rbac = (kind: string, rest: Record<string, unknown>) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  ...rest,
});

const EXPECTED: Record<string, unknown> = {
  'kubectl-create-namespace': core('Namespace', { metadata: { name: 'team1' } }),
  'kubectl-create-configmap': core('ConfigMap', { metadata: { name: 'cm1' }, data: { k1: 'v1', empty: '' } }),
  'kubectl-create-configmap-binary': core('ConfigMap', {
    metadata: { name: 'cmbin' },
    binaryData: { 'bin.dat': Buffer.from('\x00\x01\xffbin', 'latin1').toString('base64') },
  }),
  'kubectl-create-secret-generic': core('Secret', {
    metadata: { name: 's1' },
    data: { password: Buffer.from('hunter2').toString('base64') },
  }),
  'kubectl-create-secret-typed': core('Secret', {
    metadata: { name: 's2' },
    data: { a: 'Yg==' },
    type: 'example.com/custom',
  }),
  'kubectl-create-secret-docker': core('Secret', {
    metadata: { name: 'reg1' },
    data: {
      '.dockerconfigjson': Buffer.from(
        '{"auths":{"r.example.com":{"username":"u","password":"p","auth":"dTpw"}}}',
      ).toString('base64'),
    },
    type: 'kubernetes.io/dockerconfigjson',
  }),
  'kubectl-create-serviceaccount': core('ServiceAccount', { metadata: { name: 'sa1' } }),
  'kubectl-create-role': rbac('Role', {
    metadata: { name: 'r1' },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
  }),
  'kubectl-create-rolebinding': rbac('RoleBinding', {
    metadata: { name: 'rb1' },
    subjects: [{ kind: 'ServiceAccount', name: 'sa1', namespace: 'default' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r1' },
  }),
  'kubectl-create-clusterrole': rbac('ClusterRole', {
    metadata: { name: 'cr1' },
    rules: [
      { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
    ],
  }),
  'kubectl-create-clusterrolebinding': rbac('ClusterRoleBinding', {
    metadata: { name: 'crb1' },
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
    ],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr1' },
  }),
  'kubectl-create-token': {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { audiences: ['a1'], expirationSeconds: 600 },
  },
  'kubectl-create-token-bound': {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1' } },
  },
  'kubectl-auth-can-i': {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } },
  },
  'kubectl-auth-can-i-list': {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    spec: { namespace: 'default' },
  },
  'kubectl-auth-whoami': { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  'kubectl-create-deployment': {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
      },
    },
  },
  'kubectl-create-deployment-replicas0': {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'idle', labels: { app: 'idle' } },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'idle' } },
      template: {
        metadata: { labels: { app: 'idle' } },
        spec: { containers: [{ name: 'busybox', image: 'busybox', command: ['sleep', '3600'] }] },
      },
    },
  },
  'kubectl-create-service-clusterip': core('Service', {
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
      selector: { app: 'web' },
      type: 'ClusterIP',
    },
  }),
  'kubectl-create-service-nodeport': core('Service', {
    metadata: { name: 'np', labels: { app: 'np' } },
    spec: {
      ports: [{ name: '443-https', protocol: 'TCP', port: 443, targetPort: 'https', nodePort: 30443 }],
      selector: { app: 'np' },
      type: 'NodePort',
    },
  }),
  'kubectl-create-job': {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j1' },
    spec: {
      template: {
        spec: {
          containers: [{ name: 'j1', image: 'busybox', command: ['echo', 'hi'] }],
          restartPolicy: 'Never',
        },
      },
    },
  },
  'kubectl-create-cronjob': {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'cj1' },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: {
        metadata: { name: 'cj1' },
        spec: {
          template: {
            spec: {
              containers: [{ name: 'cj1', image: 'busybox', command: ['date'] }],
              restartPolicy: 'OnFailure',
            },
          },
        },
      },
    },
  },
  'kubectl-create-pdb-min': {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'pdb1' },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
  },
  'kubectl-create-pdb-max': {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'pdb2' },
    spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: '50%' },
  },
  'kubectl-create-quota': core('ResourceQuota', {
    metadata: { name: 'q1' },
    spec: { hard: { cpu: '2', memory: '1Gi', pods: '10' } },
  }),
  'kubectl-create-priorityclass': {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'high' },
    value: 1000,
    description: 'hi',
    preemptionPolicy: 'Never',
  },
  'kubectl-create-ingress': {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'ing1' },
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['foo.com'], secretName: 'my-cert' }],
      rules: [
        {
          host: 'foo.com',
          http: {
            paths: [
              {
                path: '/bar',
                pathType: 'Prefix',
                backend: { service: { name: 'svc1', port: { number: 8080 } } },
              },
            ],
          },
        },
      ],
    },
  },
  'kubectl-autoscale': {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web' },
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
        },
      ],
    },
  },
  'helm-uninstall-delete-options': { apiVersion: 'v1', kind: 'DeleteOptions' },
};

void test('every fixture has an expectation and every expectation a fixture', () => {
  const special = [
    'kubectl-certificate-approve',
    ...[...fixtures.keys()].filter((n) => n.startsWith('helm-') && n.includes('secret')),
  ];
  assert.deepEqual(
    [...fixtures.keys()].filter((n) => !(n in EXPECTED) && !special.includes(n)),
    [],
  );
  assert.deepEqual(
    Object.keys(EXPECTED).filter((n) => !fixtures.has(n)),
    [],
  );
});

for (const [name, expected] of Object.entries(EXPECTED)) {
  void test(`${name} (${fixtures.get(name)?.command ?? '?'})`, () => {
    assert.deepEqual(decode(name), expected);
  });
}

void test('kubectl certificate approve: PUT /approval keeps the stored metadata and the condition times', () => {
  const csr = decode('kubectl-certificate-approve');
  const spec = csr.spec as Record<string, unknown>;
  assert.match(
    Buffer.from(String(spec.request), 'base64').toString(),
    /^-----BEGIN CERTIFICATE REQUEST-----/,
  );
  assert.deepEqual(
    { ...csr, spec: { ...spec, request: '…' } },
    {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: {
        name: 'csr1',
        uid: '3ad074bb-1f4b-4f87-9737-559e4ae6867d',
        resourceVersion: '2',
        creationTimestamp: '2026-11-29T17:17:08Z',
      },
      spec: {
        request: '…',
        signerName: 'kubernetes.io/kube-apiserver-client',
        expirationSeconds: 86400,
        usages: ['client auth'],
      },
      status: {
        conditions: [
          {
            type: 'Approved',
            status: 'True',
            reason: 'KubectlApprove',
            message: 'This CSR was approved by kubectl certificate approve.',
            // lastTransitionTime was an empty Time on the wire: unset, not 1970
            lastUpdateTime: '2026-11-29T17:17:09Z',
          },
        ],
      },
    },
  );
});

void test('helm 4 release Secrets decode to readable releases (data.release = base64(gzip(JSON)))', () => {
  const cases: [string, string, string][] = [
    ['helm-install-secret-create', 'pending-install', 'createdAt'],
    ['helm-install-secret-update', 'deployed', 'modifiedAt'],
    ['helm-uninstall-secret-update', 'uninstalling', 'modifiedAt'],
  ];
  for (const [name, status, stampLabel] of cases) {
    const secret = decode(name);
    assert.equal(secret.type, 'helm.sh/release.v1', name);
    assert.deepEqual(Object.keys(secret).sort(), ['apiVersion', 'data', 'kind', 'metadata', 'type']);
    assert.deepEqual(secret.metadata, {
      name: 'sh.helm.release.v1.r1.v1',
      labels: { name: 'r1', owner: 'helm', status, version: '1', [stampLabel]: '1795972590' },
    });
    const data = secret.data as Record<string, string>;
    const inner = Buffer.from(data.release!, 'base64').toString('utf8');
    const release = JSON.parse(gunzipSync(Buffer.from(inner, 'base64')).toString('utf8')) as {
      name: string;
      namespace: string;
      version: number;
      info: { status: string };
    };
    assert.deepEqual(
      [release.name, release.namespace, release.version, release.info.status],
      ['r1', 'default', 1, status],
    );
  }
});
