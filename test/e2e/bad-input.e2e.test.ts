// End-to-end: a real hub process answers every kind of bad input with a 4xx Kubernetes Status (never a
// 5xx) that names the problem, and a rejected request leaves nothing behind in the store.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  hubRequest,
  openWatch,
  scratchDir,
  startHubProcess,
  type HttpResult,
  type HubProcess,
  type WatchStream,
} from '../support/hub.js';
import { GENERATIONS, kubectl } from '../support/tools.js';

/** A watched collection and a `barrier` object in it whose change proves the watch has caught up. */
interface Watched {
  collection: string;
  barrier: string;
  stream?: WatchStream;
}

const NS = '/api/v1/namespaces/default';
const CONFIGMAPS = `${NS}/configmaps`;
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const ROLES = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';

describe('bad input against a real hub', () => {
  let hub: HubProcess;
  let clientDir: string;
  let barrierRound = 0;
  const watched: Watched[] = [
    { collection: '/api/v1/configmaps', barrier: `${CONFIGMAPS}/barrier` },
    { collection: '/apis/rbac.authorization.k8s.io/v1/roles', barrier: `${ROLES}/barrier` },
    // Only `default`: the controller manager renews its own Lease in fleethub-system every few seconds.
    { collection: LEASES, barrier: `${LEASES}/barrier` },
    { collection: `${NS}/secrets`, barrier: `${NS}/secrets/barrier` },
  ];

  const send = (
    method: string,
    path: string,
    body?: string | Buffer,
    headers: Record<string, string> = {},
    token?: string | null,
  ) => hubRequest(hub, method, path, body, headers, token === undefined ? hub.token : token);

  /** The response is a 4xx Failure Status with this code and reason whose message matches `mentions`. */
  function expectStatus(
    res: HttpResult,
    code: number,
    reason: string,
    mentions: RegExp | string,
    field?: string,
  ): Record<string, unknown> {
    assert.ok(res.status < 500, `server error ${res.status}: ${res.body}`);
    assert.equal(res.status, code, `expected ${code}, got ${res.status}: ${res.body}`);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const status = res.json();
    assert.equal(status.kind, 'Status');
    assert.equal(status.apiVersion, 'v1');
    assert.equal(status.status, 'Failure');
    assert.equal(status.code, code);
    assert.equal(status.reason, reason);
    const message = String(status.message);
    if (typeof mentions === 'string')
      assert.ok(
        message.includes(mentions),
        `message ${JSON.stringify(message)} does not mention ${mentions}`,
      );
    else assert.match(message, mentions);
    if (field) {
      const causes = ((status.details as { causes?: { field?: string }[] } | undefined)?.causes ?? []).map(
        (c) => c.field,
      );
      assert.ok(causes.includes(field), `details.causes ${JSON.stringify(causes)} do not name ${field}`);
    }
    return status;
  }

  async function expectAbsent(path: string): Promise<void> {
    const res = await send('GET', path);
    assert.equal(res.status, 404, `${path} should not exist: ${res.body}`);
  }

  async function snapshot(path: string): Promise<string> {
    const res = await send('GET', path);
    assert.equal(res.status, 200, res.body);
    return res.body;
  }

  /**
   * Runs `fn` and proves it wrote nothing to the watched collections: after it, each barrier object is
   * touched and, once the watch delivers that change, no other event may have arrived since `fn` began.
   */
  async function expectNoWrites(fn: () => Promise<void>): Promise<void> {
    const marks = watched.map((w) => w.stream!.events.length);
    await fn();
    barrierRound++;
    for (const [i, w] of watched.entries()) {
      const patched = await send(
        'PATCH',
        w.barrier,
        JSON.stringify({ metadata: { annotations: { round: String(barrierRound) } } }),
        {
          'Content-Type': 'application/merge-patch+json',
        },
      );
      assert.equal(patched.status, 200, patched.body);
      const version = (patched.json().metadata as { resourceVersion: string }).resourceVersion;
      const stream = w.stream!;
      const { index: at } = await stream.next((e) => e.object.metadata?.resourceVersion === version, {
        from: marks[i]!,
      });
      const stray = stream.events.slice(marks[i], at);
      assert.deepEqual(
        stray.map((e) => `${e.type} ${e.object.metadata?.namespace ?? ''}/${e.object.metadata?.name ?? ''}`),
        [],
        `a rejected request changed ${w.collection}`,
      );
    }
  }

  before(async () => {
    hub = await startHubProcess();
    clientDir = scratchDir('fleethub-bad-input-');
    const fixtures: [string, unknown][] = [
      [CONFIGMAPS, { metadata: { name: 'fixture' }, data: { a: '1' } }],
      [CONFIGMAPS, { metadata: { name: 'barrier' } }],
      [ROLES, { metadata: { name: 'barrier' }, rules: [] }],
      [LEASES, { metadata: { name: 'barrier' }, spec: {} }],
      [`${NS}/secrets`, { metadata: { name: 'barrier' } }],
    ];
    for (const [path, body] of fixtures) {
      const res = await send('POST', path, JSON.stringify(body));
      assert.equal(res.status, 201, res.body);
    }
    for (const w of watched) {
      const list = await send('GET', w.collection);
      assert.equal(list.status, 200, list.body);
      const version = (list.json().metadata as { resourceVersion: string }).resourceVersion;
      w.stream = await openWatch(hub, `${w.collection}?watch=true&resourceVersion=${version}`);
    }
  });

  after(async () => {
    for (const w of watched) w.stream?.close();
    await hub?.stop();
  });

  test('malformed JSON on create is a 400 and creates nothing', async () => {
    await expectNoWrites(async () => {
      const res = await send('POST', CONFIGMAPS, '{"metadata":{"name":"broken-json"},"data":{');
      expectStatus(res, 400, 'BadRequest', /JSON/);
    });
    await expectAbsent(`${CONFIGMAPS}/broken-json`);
  });

  test('malformed YAML in a server-side apply is a 400 and creates nothing', async () => {
    await expectNoWrites(async () => {
      const res = await send(
        'PATCH',
        `${CONFIGMAPS}/broken-yaml?fieldManager=e2e`,
        'metadata:\n  name: broken-yaml\ndata: [unclosed\n  a: :\n',
        {
          'Content-Type': 'application/apply-patch+yaml',
        },
      );
      expectStatus(res, 400, 'BadRequest', /YAML/);
    });
    await expectAbsent(`${CONFIGMAPS}/broken-yaml`);
  });

  test('a body whose kind or apiVersion does not match the URL is a 400', async () => {
    await expectNoWrites(async () => {
      const wrongKind = await send(
        'POST',
        CONFIGMAPS,
        JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'mismatched' } }),
      );
      expectStatus(wrongKind, 400, 'BadRequest', /kind .*\(Secret\).*\(ConfigMap\)/);
      const wrongVersion = await send(
        'POST',
        CONFIGMAPS,
        JSON.stringify({ apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'mismatched' } }),
      );
      expectStatus(wrongVersion, 400, 'BadRequest', /apps\/v1/);
    });
    await expectAbsent(`${CONFIGMAPS}/mismatched`);
    await expectAbsent(`${NS}/secrets/mismatched`);
  });

  test('an unknown resource is a 404 on the wire and an unknown resource type to kubectl', async () => {
    expectStatus(
      await send('GET', '/apis/nope.example.com/v1/widgets'),
      404,
      'NotFound',
      'the server could not find the requested resource',
    );
    expectStatus(
      await send(
        'POST',
        '/apis/nope.example.com/v1/namespaces/default/widgets',
        JSON.stringify({ metadata: { name: 'w' } }),
      ),
      404,
      'NotFound',
      'the server could not find the requested resource',
    );
    for (const generation of GENERATIONS) {
      const result = await kubectl(generation, hub.kubeconfig, ['get', 'widgets']);
      assert.notEqual(result.code, 0, `kubectl ${generation} get widgets succeeded: ${result.stdout}`);
      assert.match(
        result.stderr,
        /the server doesn't have a resource type "widgets"/,
        `kubectl ${generation}: ${result.stderr}`,
      );
    }
  });

  test('an invalid name is a 422 naming metadata.name, on the wire and through kubectl create', async () => {
    await expectNoWrites(async () => {
      const res = await send('POST', CONFIGMAPS, JSON.stringify({ metadata: { name: 'Bad_Name' } }));
      expectStatus(
        res,
        422,
        'Invalid',
        'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"',
        'metadata.name',
      );
      for (const generation of GENERATIONS) {
        const result = await kubectl(generation, hub.kubeconfig, ['create', 'configmap', 'Bad_Name']);
        assert.notEqual(result.code, 0, `kubectl ${generation} create configmap Bad_Name succeeded`);
        assert.match(
          result.stderr,
          /ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name"/,
          `kubectl ${generation}: ${result.stderr}`,
        );
      }
    });
    await expectAbsent(`${CONFIGMAPS}/Bad_Name`);
  });

  test('wrong field types are a 422 naming the field', async () => {
    await expectNoWrites(async () => {
      const configMap = await send(
        'POST',
        CONFIGMAPS,
        JSON.stringify({ metadata: { name: 'typed' }, data: { a: 1 } }),
      );
      expectStatus(configMap, 422, 'Invalid', 'data.a', 'data.a');
      const role = await send('POST', ROLES, JSON.stringify({ metadata: { name: 'typed' }, rules: 'x' }));
      expectStatus(
        role,
        422,
        'Invalid',
        /Role\.rbac\.authorization\.k8s\.io "typed" is invalid: rules/,
        'rules',
      );
    });
    await expectAbsent(`${CONFIGMAPS}/typed`);
    await expectAbsent(`${ROLES}/typed`);
  });

  test('unknown fields: Strict rejects with a strict decoding error, the default warns and drops them', async () => {
    await expectNoWrites(async () => {
      const strict = await send(
        'POST',
        `${LEASES}?fieldValidation=Strict`,
        JSON.stringify({ metadata: { name: 'strict' }, spec: { foo: 1 } }),
      );
      expectStatus(strict, 400, 'BadRequest', 'strict decoding error: unknown field "spec.foo"');
      const bogus = await send(
        'POST',
        `${LEASES}?fieldValidation=Sometimes`,
        JSON.stringify({ metadata: { name: 'strict' } }),
      );
      expectStatus(bogus, 400, 'BadRequest', /fieldValidation/);
    });
    await expectAbsent(`${LEASES}/strict`);

    const warned = await send(
      'POST',
      LEASES,
      JSON.stringify({ metadata: { name: 'warned' }, spec: { foo: 1, holderIdentity: 'me' } }),
    );
    assert.equal(warned.status, 201, warned.body);
    const warning = [warned.headers.warning ?? []].flat().join('\n');
    assert.match(warning, /^299 - "unknown field \\"spec\.foo\\""/m, `Warning header: ${warning}`);
    const stored = JSON.parse(await snapshot(`${LEASES}/warned`)) as { spec: Record<string, unknown> };
    assert.deepEqual(stored.spec, { holderIdentity: 'me' }, 'the unknown field must not be stored');
  });

  test('a body nested 100,000 levels deep is a 400, never a crash, on create and on patch', async () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    await expectNoWrites(async () => {
      const create = await send('POST', CONFIGMAPS, `{"metadata":{"name":"deep"},"data":${deep(100_000)}}`);
      expectStatus(create, 400, 'BadRequest', /nests deeper than 256 levels/);
      const patch = await send('PATCH', `${CONFIGMAPS}/fixture`, `{"data":${deep(100_000)}}`, {
        'Content-Type': 'application/merge-patch+json',
      });
      expectStatus(patch, 400, 'BadRequest', /nests deeper than 256 levels/);
    });
    await expectAbsent(`${CONFIGMAPS}/deep`);
  });

  test('a 4 MiB body is a 413 and creates nothing', async () => {
    await expectNoWrites(async () => {
      const body = JSON.stringify({ metadata: { name: 'huge' }, data: { a: 'x'.repeat(4 * 1024 * 1024) } });
      const res = await send('POST', CONFIGMAPS, body);
      expectStatus(res, 413, 'RequestEntityTooLarge', /too large/i);
    });
    await expectAbsent(`${CONFIGMAPS}/huge`);
  });

  test('PUT with a stale resourceVersion is a 409 Conflict and changes nothing', async () => {
    const before = await snapshot(`${CONFIGMAPS}/fixture`);
    await expectNoWrites(async () => {
      const res = await send(
        'PUT',
        `${CONFIGMAPS}/fixture`,
        JSON.stringify({ metadata: { name: 'fixture', resourceVersion: '1' }, data: { a: 'stale' } }),
      );
      const status = expectStatus(
        res,
        409,
        'Conflict',
        'Operation cannot be fulfilled on configmaps "fixture": the object has been modified; please apply your changes to the latest version and try again',
      );
      assert.equal((status.details as { name?: string }).name, 'fixture');
    });
    assert.equal(await snapshot(`${CONFIGMAPS}/fixture`), before);
  });

  test('creating an existing object is a 409 AlreadyExists and leaves it unchanged', async () => {
    const before = await snapshot(`${CONFIGMAPS}/fixture`);
    await expectNoWrites(async () => {
      const res = await send(
        'POST',
        CONFIGMAPS,
        JSON.stringify({ metadata: { name: 'fixture' }, data: { a: 'replaced?' } }),
      );
      expectStatus(res, 409, 'AlreadyExists', 'configmaps "fixture" already exists');
    });
    assert.equal(await snapshot(`${CONFIGMAPS}/fixture`), before);
  });

  test('creating in a missing namespace is a 404 naming the namespace', async () => {
    await expectNoWrites(async () => {
      const res = await send(
        'POST',
        '/api/v1/namespaces/x/configmaps',
        JSON.stringify({ metadata: { name: 'orphan' } }),
      );
      expectStatus(res, 404, 'NotFound', 'namespaces "x" not found');
    });
    await expectAbsent('/api/v1/namespaces/x');
    await expectAbsent('/api/v1/namespaces/x/configmaps/orphan');
  });

  test('a JSON patch whose test op fails is a 422 and applies none of its ops', async () => {
    const before = await snapshot(`${CONFIGMAPS}/fixture`);
    await expectNoWrites(async () => {
      const patch = [
        { op: 'replace', path: '/data/a', value: 'patched' },
        { op: 'test', path: '/data/a', value: 'not-the-value' },
      ];
      const res = await send('PATCH', `${CONFIGMAPS}/fixture`, JSON.stringify(patch), {
        'Content-Type': 'application/json-patch+json',
      });
      expectStatus(res, 422, 'Invalid', /test/);
    });
    assert.equal(await snapshot(`${CONFIGMAPS}/fixture`), before);
  });

  test('a patch in an unknown media type is a 415 listing the accepted ones', async () => {
    // Every patchable built-in kind has strategic-merge metadata (AuditEvent, the only one without, is
    // read-only), so the 415 is shown with a patch type the hub does not know at all.
    const before = await snapshot(`${CONFIGMAPS}/fixture`);
    await expectNoWrites(async () => {
      const res = await send('PATCH', `${CONFIGMAPS}/fixture`, '{"data":{"a":"2"}}', {
        'Content-Type': 'application/unknown-patch+json',
      });
      expectStatus(res, 415, 'UnsupportedMediaType', 'application/merge-patch+json');
    });
    assert.equal(await snapshot(`${CONFIGMAPS}/fixture`), before);
    const readOnly = await send('PATCH', '/apis/fleet.fleethub.io/v1alpha1/auditevents/any', '{}', {
      'Content-Type': 'application/strategic-merge-patch+json',
    });
    expectStatus(readOnly, 405, 'MethodNotAllowed', /not allow/);
  });

  test('bad list options are 400s: label selector, field selector, continue token', async () => {
    expectStatus(
      await send('GET', `${CONFIGMAPS}?labelSelector=${encodeURIComponent('a in (')}`),
      400,
      'BadRequest',
      /unable to parse requirement/,
    );
    expectStatus(
      await send('GET', `${CONFIGMAPS}?fieldSelector=${encodeURIComponent('data.a=1')}`),
      400,
      'BadRequest',
      'field label not supported: data.a',
    );
    expectStatus(
      await send('GET', `${CONFIGMAPS}?limit=1&continue=not-a-token`),
      400,
      'BadRequest',
      /continue/,
    );
    expectStatus(
      await send('GET', `/api/v1/configmaps?watch=true&labelSelector=${encodeURIComponent('a in (')}`),
      400,
      'BadRequest',
      /unable to parse requirement/,
    );
  });

  test('no token or a bad token is a 401 and writes nothing', async () => {
    await expectNoWrites(async () => {
      const body = JSON.stringify({ metadata: { name: 'sneaky' } });
      expectStatus(await send('POST', CONFIGMAPS, body, {}, null), 401, 'Unauthorized', 'Unauthorized');
      expectStatus(
        await send('POST', CONFIGMAPS, body, {}, 'not-a-real-token'),
        401,
        'Unauthorized',
        'Unauthorized',
      );
      expectStatus(await send('GET', CONFIGMAPS, undefined, {}, null), 401, 'Unauthorized', 'Unauthorized');
      expectStatus(
        await send('GET', CONFIGMAPS, undefined, {}, `${hub.token}x`),
        401,
        'Unauthorized',
        'Unauthorized',
      );
    });
    await expectAbsent(`${CONFIGMAPS}/sneaky`);
  });

  test('kubectl apply -f: malformed YAML fails in the client, an invalid name shows the server Status', async () => {
    const broken = join(clientDir, 'broken.yaml');
    writeFileSync(broken, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-file\n data: [\n');
    const invalid = join(clientDir, 'invalid.yaml');
    writeFileSync(invalid, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\ndata:\n  a: b\n');
    await expectNoWrites(async () => {
      for (const generation of GENERATIONS) {
        const parse = await kubectl(generation, hub.kubeconfig, ['apply', '-f', broken]);
        assert.notEqual(parse.code, 0, `kubectl ${generation} applied malformed YAML`);
        assert.match(
          parse.stderr,
          /error parsing .*broken\.yaml: error converting YAML to JSON: yaml: line \d+/,
          `kubectl ${generation}: ${parse.stderr}`,
        );
        for (const serverSide of [false, true]) {
          const args = ['apply', ...(serverSide ? ['--server-side'] : []), '-f', invalid];
          const result = await kubectl(generation, hub.kubeconfig, args);
          assert.notEqual(result.code, 0, `kubectl ${generation} ${args.join(' ')} succeeded`);
          assert.match(
            result.stderr,
            /The ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
            `kubectl ${generation} ${args.join(' ')}: ${result.stderr}`,
          );
        }
      }
    });
    await expectAbsent(`${CONFIGMAPS}/from-file`);
    await expectAbsent(`${CONFIGMAPS}/Bad_Name`);
  });

  test('no request above ended in a server error', async () => {
    const metrics = await send('GET', '/metrics');
    const serverErrors = metrics.body
      .split('\n')
      .filter((l) => /^fleethub_apiserver_requests_total\{.*code="5\d\d"/.test(l));
    assert.deepEqual(serverErrors, []);
    assert.doesNotMatch(hub.output(), /"msg":"request failed"/);
  });
});
