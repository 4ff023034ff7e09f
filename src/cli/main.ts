// The fleethub command line: `fleethub hub` runs a hub (`hub rotate-encryption-key` rotates the key that
// encrypts Secrets at rest); `fleethub agent` joins a cluster or host to a hub; `sim` and `template` too.
// The hub's modules load only for hub commands: `fleethub template …` starts in a fraction of the time.
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, hubConfig } from '../hub/config.js';

const USAGE = `usage:
  fleethub hub [--data-dir DIR] [--listen HOST:PORT] [--database URL] [--insecure-http-listen 127.0.0.1:PORT]
               [--tls-san NAME]... [--log-level LEVEL] [--identity NAME] [--audit-retention 30d]
  fleethub hub rotate-encryption-key [--data-dir DIR] [--database URL]
  fleethub agent --hub URL --ca-file FILE --state-dir DIR (--kubeconfig FILE | --host)
                 [--join-token-file FILE] [--join-token TOKEN] [--lease-duration-seconds 60] [--log-level L]
                 (the join token may also come from FLEETHUB_JOIN_TOKEN; only the first start needs it)
  fleethub sim cluster --listen HOST:PORT --kubeconfig-out FILE [--name N] [--nodes 3] [--version V]
                       [--pod-cidr CIDR] [--service-cidr CIDR] [--insecure-http] [--faults JSON]
  fleethub sim fleet --clusters N --listen HOST:PORT --kubeconfig-dir DIR [--name-prefix sim-] …
  fleethub template render FILE… [--values F]… [--set k=v]… [--data F] [--resource ID=F]… [--missing-key error]
  fleethub template chart [NAME] CHART [-n NS] [-f F]… [--set k=v]… [--kube-version V] [--api-versions G/V]
                          [--include-crds] [--skip-tests] [--no-hooks] [--is-upgrade]

  --data-dir   key material, admin kubeconfig and (by default) the SQLite database (default ./fleethub-data)
  --listen     HTTPS listener (default 127.0.0.1:8443)
  --database   sqlite:/path/file.db (default: DIR/fleethub.db) or postgres://user:pass@host:port/db
`;

async function runHub(argv: string[]): Promise<void> {
  const config = hubConfig(argv);
  const { startHub } = await import('../hub/hub.js');
  const hub = await startHub(config);
  process.stderr.write(`fleethub hub listening on ${hub.url}\n`);
  if (hub.insecureUrl) process.stderr.write(`plain HTTP (loopback only) on ${hub.insecureUrl}\n`);
  process.stderr.write(`admin kubeconfig: ${hub.kubeconfigPath}\n`);
  process.stderr.write(`try: KUBECONFIG=${hub.kubeconfigPath} .tools/v35/kubectl get namespaces\n`);
  let demo: { close(): Promise<void> } | undefined;
  if (config.demoFleet > 0) {
    // A simulated fleet beside the hub, joined by in-process agents, so a fresh install has clusters to look at.
    const { startDemoFleet } = await import('./demo-fleet.js');
    const fleet = await startDemoFleet({
      clusters: config.demoFleet,
      dataDir: config.dataDir,
      hubUrl: hub.url,
      caFile: join(config.dataDir, 'pki', 'ca.crt'),
      adminKubeconfig: hub.kubeconfigPath,
      logger: hub.logger,
    });
    demo = fleet;
    process.stderr.write(
      `demo fleet: ${config.demoFleet} simulated clusters on ${fleet.url}, joined by agents; ` +
        `try: KUBECONFIG=${hub.kubeconfigPath} .tools/v35/kubectl get clusters -A\n`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    hub.logger.info({ signal }, 'shutting down');
    Promise.all([hub.close(), demo?.close()]).then(
      () => process.exit(0),
      (err: unknown) => {
        hub.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'hub' && rest[0] === 'rotate-encryption-key') {
    const { rotateEncryptionKey } = await import('../hub/rotate.js');
    const result = await rotateEncryptionKey(hubConfig(rest.slice(1)));
    process.stderr.write(`new primary key ${result.keyId}; re-encrypted ${result.rewritten} stored values\n`);
    return;
  }
  if (command === 'hub') return runHub(rest);
  if (command === 'agent') {
    // The agent idles on every cluster and host: V8's lite mode (no optimizing compiler, feedback
    // allocated lazily) keeps it some 6 MiB smaller, and nothing it does is hot enough to need TurboFan.
    // Set before the agent's modules load, so all of its code is compiled under it.
    if (process.env['FLEETHUB_AGENT_LITE_MODE'] !== '0') setFlagsFromString('--lite-mode');
    const { runAgent } = await import('./agent.js');
    return runAgent(rest);
  }
  if (command === 'sim') {
    const { runSim } = await import('./sim.js');
    return runSim(rest);
  }
  if (command === 'template' && rest[0] === 'chart') {
    const { renderChartCommand } = await import('./template.js');
    process.stdout.write(await renderChartCommand(rest.slice(1)));
    return;
  }
  if (command === 'template' && rest[0] === 'render') {
    const { parseTemplateArgs, renderTemplateFiles } = await import('./template.js');
    process.stdout.write(await renderTemplateFiles(parseTemplateArgs(rest.slice(1))));
    return;
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return;
  }
  throw new ConfigError(`unknown command "${command}"`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`fleethub: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  // Template errors carry Go's wording (template name, line, column): print them as they are.
  process.stderr.write(`fleethub: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
