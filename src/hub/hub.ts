// The hub process: data dir and key material, the store, security (authn, RBAC, audit), the API
// server on HTTPS (and optional loopback HTTP), health and metrics, controllers under leader election.
import { mkdirSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { pino, type Logger as PinoLogger } from 'pino';
import { ApiServer } from '../apiserver/server.js';
import { namespaceController } from '../controllers/namespace/namespace.controller.js';
import { agentHealthController } from '../controllers/agent-health/agent-health.controller.js';
import { workReleaseController } from '../controllers/work-release/work-release.controller.js';
import { addonProfileController } from '../controllers/addon-profile/addon-profile.controller.js';
import { addonSummaryController } from '../controllers/addon-summary/addon-summary.controller.js';
import { addonReportController } from '../controllers/addon-report/addon-report.controller.js';
import { addonLocalController } from '../controllers/addon-local/addon-local.controller.js';
import { KubeClient } from '../kube/client.js';
import { RemoteContentCache } from '../addons/remote/index.js';
import { HelmFeatureRenderer } from '../addons/helm/index.js';
import { csrController } from '../controllers/csr/csr.controller.js';
import { clusterJoinController, hostJoinController } from '../controllers/join/join.controller.js';
import { AgentAuthorizer, WorkClusterIndex } from '../security/agent-authorizer.js';
import { Informer } from '../controllers/runtime/informer.js';
import { ControllerManager } from '../controllers/runtime/manager.js';
import { MetricsRegistry } from '../controllers/runtime/metrics.js';
import { builtinKinds } from '../kinds/builtin/index.js';
import { KindRegistry } from '../kinds/registry.js';
import { resourceName } from '../kinds/types.js';
import { ensureAdminKubeconfig } from '../security/admin.js';
import { AuditLog } from '../security/audit.js';
import { pruneAuditEvents } from '../security/audit-retention.js';
import { Authenticator } from '../security/authn.js';
import { ensureBuiltinRbac } from '../security/builtin-roles.js';
import { ensureKeyring, secretsCodec } from '../security/encryption.js';
import { ensurePki, tlsServerOptions } from '../security/pki.js';
import { RbacIndex, RBAC_RESOURCES } from '../security/rbac.js';
import { RbacAuthorizer } from '../security/rbac-authorizer.js';
import { TokenStore } from '../security/tokens.js';
import { openStore } from '../store/index.js';
import type { Store } from '../store/types.js';
import { errors, isApiError } from '../util/errors.js';
import { writeError } from '../apiserver/respond.js';
import { isLoopback, type HubConfig } from './config.js';

export const SYSTEM_NAMESPACE = 'fleethub-system';
const INITIAL_NAMESPACES = ['default', SYSTEM_NAMESPACE];
/** Served by the REST facade of a later issue; never a Kubernetes resource path. */
const RESERVED_PREFIX = '/api/v1/k8s-clusters';
const HOUSEKEEPING_INTERVAL_MS = 10 * 60 * 1000;

export interface Hub {
  url: string;
  insecureUrl?: string;
  kubeconfigPath: string;
  store: Store;
  registry: KindRegistry;
  metrics: MetricsRegistry;
  logger: PinoLogger;
  /** Drains in-flight requests, ends watches, stops controllers (releasing the lease), closes the store. */
  close(): Promise<void>;
}

export interface HubOptions {
  /** Log destination; default stdout. */
  logStream?: NodeJS.WritableStream;
}

function urlOf(server: Server, scheme: 'http' | 'https', host: string): string {
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return `${scheme}://${shown}:${port}`;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a fleet's agents reconnect together after a hub restart.
    server.listen({ port, host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function ensureNamespaces(store: Store): Promise<void> {
  for (const name of INITIAL_NAMESPACES) {
    try {
      await store.create('namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      });
    } catch (e) {
      if (!(isApiError(e) && e.code === 409)) throw e;
    }
  }
}

export async function startHub(config: HubConfig, options: HubOptions = {}): Promise<Hub> {
  const logger = pino(
    { level: config.logLevel, base: { pid: process.pid } },
    (options.logStream ?? process.stdout) as never,
  );
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const registry = new KindRegistry(builtinKinds);
  const metrics = new MetricsRegistry();

  const sans = [...config.tlsSans, config.listen.host].filter((h) => h !== '0.0.0.0' && h !== '::');
  const pkiOptions = { hostnames: sans.filter((h) => isIP(h) === 0), ips: sans.filter((h) => isIP(h) !== 0) };
  const pki = await ensurePki(config.dataDir, pkiOptions);
  const keyring = ensureKeyring(config.dataDir);
  const encrypted = new Set(
    registry
      .all()
      .filter((k) => k.encrypted)
      .map(resourceName),
  );
  const store = await openStore({
    url: config.databaseUrl,
    codec: secretsCodec(keyring, encrypted),
    logger: logger.child({ component: 'store' }),
  });

  await ensureNamespaces(store);
  await ensureBuiltinRbac(store);

  const tokens = new TokenStore(store);
  const rbac = new RbacIndex();
  // Every replica authorizes, so every replica keeps the RBAC objects in memory, fed by watches.
  const rbacInformers = Object.values(RBAC_RESOURCES).map((resource) => {
    const informer = new Informer({
      store,
      resource,
      logger: logger.child({ component: 'rbac-informer', resource }),
    });
    informer.addEventHandler({
      onAdd: (obj) => rbac.upsert(resource, obj),
      onUpdate: (_old, obj) => rbac.upsert(resource, obj),
      onDelete: (obj) => rbac.remove(resource, obj.metadata.namespace ?? '', obj.metadata.name ?? ''),
    });
    return informer;
  });
  for (const informer of rbacInformers) informer.start();
  // The agent authorizer decides on single ManifestWorks by their cluster label: every replica indexes them.
  const workIndex = new WorkClusterIndex({ store, logger: logger.child({ component: 'work-index' }) });
  workIndex.start();
  const audit = new AuditLog(store, { onError: (err) => logger.error({ err }, 'audit write failed') });

  const api = new ApiServer({
    registry,
    store,
    authenticator: new Authenticator(tokens),
    // Agents and join bootstrap users are decided by the agent authorizer alone; everyone else by RBAC.
    authorizer: new AgentAuthorizer(new RbacAuthorizer(rbac), workIndex),
    audit: { record: (entry) => audit.record({ ...entry, time: new Date(entry.time) }) },
    tokens: {
      issueServiceAccountToken: async (sa, opts) => {
        const issued = await tokens.issueServiceAccountToken(sa, {
          expirationSeconds: opts.expirationSeconds,
        });
        return { token: issued.token, expirationTimestamp: issued.expiresAt };
      },
    },
    logger: logger.child({ component: 'apiserver' }),
    // Metrics reveal the fleet's shape and traffic: like kube-apiserver, only for those RBAC lets read /metrics.
    nonResourceRoutes: new Map([
      [
        '/metrics',
        (_req: IncomingMessage, res: ServerResponse) => {
          res.writeHead(200, { 'Content-Type': MetricsRegistry.contentType });
          res.end(metrics.render());
        },
      ],
    ]),
  });

  const requests = metrics.counter({
    name: 'fleethub_apiserver_requests_total',
    help: 'API requests by verb and response code.',
    labelNames: ['method', 'code'],
  });
  const latency = metrics.histogram({
    name: 'fleethub_apiserver_request_duration_seconds',
    help: 'API request latency (watches excluded).',
    labelNames: ['method'],
  });
  let ready = false;

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      const ok = path !== '/readyz' || ready;
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain' });
      res.end(ok ? 'ok' : 'not ready');
      return;
    }
    if (path === RESERVED_PREFIX || path.startsWith(`${RESERVED_PREFIX}/`)) {
      writeError(res, errors.pathNotFound());
      return;
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      requests.inc({ method: req.method ?? '', code: String(res.statusCode) });
      // Method, path and code only: query strings and bodies may carry what logs must never hold.
      logger.debug(
        {
          method: req.method,
          path,
          code: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
      if (!(req.url ?? '').includes('watch='))
        latency.observe({ method: req.method ?? '' }, Number(process.hrtime.bigint() - started) / 1e9);
    });
    void api.handle(req, res);
  };

  const httpsServer = createHttpsServer(tlsServerOptions(pki), handler);
  // Agents keep their connections: idle ones live past their renew interval (node's default is 5 s,
  // which makes a fleet of agents reconnect, and race the server's close, every few seconds).
  httpsServer.keepAliveTimeout = 65_000;
  httpsServer.headersTimeout = 66_000;
  await listen(httpsServer, config.listen.host, config.listen.port);
  const url = urlOf(httpsServer, 'https', config.listen.host);
  let httpServer: Server | undefined;
  let insecureUrl: string | undefined;
  if (config.insecureHttpListen) {
    if (!isLoopback(config.insecureHttpListen.host)) throw new Error('plain HTTP is only served on loopback');
    httpServer = createHttpServer(handler);
    await listen(httpServer, config.insecureHttpListen.host, config.insecureHttpListen.port);
    insecureUrl = urlOf(httpServer, 'http', config.insecureHttpListen.host);
  }

  const { path: kubeconfigPath } = await ensureAdminKubeconfig({
    dataDir: config.dataDir,
    server: url,
    caPem: pki.ca.certPem,
    tokens,
  });

  const manager = new ControllerManager({
    store,
    logger,
    metrics,
    leaderElection: {
      namespace: SYSTEM_NAMESPACE,
      name: 'fleethub-controller-manager',
      ...(config.identity ? { identity: config.identity } : {}),
    },
  });
  manager.add(
    namespaceController({ store, namespacedResources: () => registry.namespacedResources(), logger }),
  );
  // Agents joining: one-time tokens per join, CSR approval and signing (the leader signs), lease health.
  // The join command shows the URL this hub listens on (no separate advertised URL is configured yet).
  // Joins and CSRs of different agents are independent (claims on a join are optimistic), so a fleet
  // joining at once is served by several workers.
  const workers = { maxConcurrentReconciles: 8 };
  manager.add(clusterJoinController({ store, tokens, hubUrl: url, ...workers }));
  manager.add(hostJoinController({ store, tokens, hubUrl: url, ...workers }));
  manager.add(
    csrController({
      store,
      tokens,
      ca: () => pki.ca,
      audit: { record: (entry) => audit.record(entry) },
      ...workers,
    }),
  );
  manager.add(agentHealthController({ store, ...workers }));
  manager.add(workReleaseController({ store, ...workers }));
  // Add-on delivery (Sveltos's API): profiles → ClusterSummaries → ManifestWorks. remoteURL bodies are
  // fetched once per interval for the whole fleet.
  manager.add(addonProfileController({ store, ...workers }));
  manager.add(
    addonSummaryController({
      store,
      remote: new RemoteContentCache(),
      helm: new HelmFeatureRenderer(),
      kinds: builtinKinds,
      ...workers,
    }),
  );
  // DryRun summaries: the agent's dry-run answer on the work becomes the summary's ClusterReport.
  manager.add(addonReportController({ store, ...workers }));
  // deploymentType Local: ClusterProfile content applied to the hub itself, through its own API as its admin
  // (admission, RBAC and audit apply; only kinds the hub serves), by whichever replica leads.
  const localClient = KubeClient.fromKubeconfig(kubeconfigPath);
  manager.add(addonLocalController({ store, client: localClient, ...workers }));
  manager.start();

  // Housekeeping on every replica (each step is idempotent): drop dead token records, and renew the
  // serving certificate before it expires without a restart.
  const housekeeping = setInterval(() => {
    void (async () => {
      try {
        const purged = await tokens.purgeExpired();
        if (purged > 0) logger.info({ purged }, 'expired tokens removed');
        // One replica prunes the audit log: the one running controllers.
        if (config.auditRetentionMs > 0 && manager.isRunning()) {
          const pruned = await pruneAuditEvents(store, new Date(Date.now() - config.auditRetentionMs));
          if (pruned > 0) logger.info({ pruned }, 'audit events past retention removed');
        }
        const renewed = await ensurePki(config.dataDir, pkiOptions);
        if (renewed.serving.certPem !== pki.serving.certPem) {
          httpsServer.setSecureContext(tlsServerOptions(renewed));
          pki.serving = renewed.serving;
          logger.info('serving certificate renewed');
        }
      } catch (err) {
        logger.warn({ err }, 'housekeeping failed');
      }
    })();
  }, HOUSEKEEPING_INTERVAL_MS);
  housekeeping.unref();

  await Promise.all([...rbacInformers.map((i) => i.waitForSync()), workIndex.waitForSync()]);
  ready = true;
  logger.info(
    {
      url,
      insecureUrl,
      database: config.databaseUrl.replace(/\/\/[^@]*@/, '//***@'),
      kubeconfig: kubeconfigPath,
    },
    'hub ready',
  );

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      ready = false;
      clearInterval(housekeeping);
      const servers = [httpsServer, httpServer].filter((s): s is Server => s !== undefined);
      const closed = Promise.all(
        servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
      );
      api.closeWatches();
      for (const s of servers) s.closeIdleConnections();
      // In-flight requests finish; anything still open after the grace period is cut.
      const grace = setTimeout(() => servers.forEach((s) => s.closeAllConnections()), 10_000);
      await closed;
      clearTimeout(grace);
      await manager.stop();
      localClient.close();
      for (const informer of rbacInformers) informer.stop();
      workIndex.stop();
      await audit.close();
      await store.close();
      logger.info('hub stopped');
    })();
    return closing;
  };

  const hub: Hub = { url, kubeconfigPath, store, registry, metrics, logger, close };
  if (insecureUrl) hub.insecureUrl = insecureUrl;
  return hub;
}
