// `fleethub sim cluster` and `fleethub sim fleet`: simulated Kubernetes clusters for agents, demos and
// scale tests, with kubeconfigs the real kubectl and helm use as they are.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../hub/config.js';
import { SimCluster, type SimClusterOptions } from '../sim/cluster.js';
import { parseFaultSpec, type FaultSpec } from '../sim/faults.js';
import { SimServer } from '../sim/server.js';
import { parseCidr } from '../util/ipv4.js';

export const SIM_USAGE = `usage:
  fleethub sim cluster --listen HOST:PORT --kubeconfig-out FILE [--name N] [--nodes 3] [--max-pods 110]
                       [--version v1.34.2+k3s1] [--pod-cidr 10.42.0.0/16] [--service-cidr 10.43.0.0/16]
                       [--insecure-http] [--faults JSON] [--legacy-discovery] [--no-openapi] [--reject-protobuf]
  fleethub sim fleet --clusters N --listen HOST:PORT --kubeconfig-dir DIR [--name-prefix sim-]
                     [--nodes 3] [--version V] [--insecure-http] [--faults JSON]

  --listen        where to serve (default 127.0.0.1:0, a free port); TLS with a CA made at start
  --insecure-http plain HTTP, loopback only (kubectl then sends no token; every caller is admin)
  --legacy-discovery, --no-openapi, --reject-protobuf
                  behave like an older or stripped-down API server (see docs/simulator.md)
  --faults        initial faults of every cluster, e.g. '{"latencyMs":50,"errorRate":0.1,"errorCode":503}';
                  change them later with PUT /sim/clusters/<name>/faults (see docs/simulator.md)`;

interface SimArgs {
  mode: 'cluster' | 'fleet';
  host: string;
  port: number;
  kubeconfigOut?: string;
  kubeconfigDir?: string;
  name: string;
  namePrefix: string;
  clusters: number;
  nodes: number;
  maxPods?: number;
  version?: string;
  podCidr?: string;
  serviceCidr?: string;
  insecureHttp: boolean;
  faults?: FaultSpec;
  compat: { legacyDiscovery?: boolean; noOpenApi?: boolean; rejectProtobuf?: boolean };
}

function parseListen(value: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(value);
  if (!m) throw new ConfigError(`--listen must be HOST:PORT, got "${value}"`);
  const port = Number(m[2]);
  if (port > 65535) throw new ConfigError(`--listen port ${port} is above 65535`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function positiveInt(flag: string, value: string, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new ConfigError(`${flag} must be a whole number from 1 to ${max}`);
  return n;
}

export function parseSimArgs(argv: string[]): SimArgs {
  const [mode, ...rest] = argv;
  if (mode !== 'cluster' && mode !== 'fleet') throw new ConfigError('expected `sim cluster` or `sim fleet`');
  const args: SimArgs = {
    mode,
    host: '127.0.0.1',
    port: 0,
    name: 'sim',
    namePrefix: 'sim-',
    clusters: 0,
    nodes: 3,
    insecureHttp: false,
    compat: {},
  };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq > 0 && arg.startsWith('--') ? arg.slice(eq + 1) : rest[++i];
      if (v === undefined) throw new ConfigError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--listen':
        Object.assign(args, parseListen(value()));
        break;
      case '--kubeconfig-out':
        args.kubeconfigOut = value();
        break;
      case '--kubeconfig-dir':
        args.kubeconfigDir = value();
        break;
      case '--name':
        args.name = value();
        break;
      case '--name-prefix':
        args.namePrefix = value();
        break;
      case '--clusters':
        args.clusters = positiveInt('--clusters', value(), 10_000);
        break;
      case '--nodes':
        args.nodes = positiveInt('--nodes', value(), 250);
        break;
      case '--max-pods':
        args.maxPods = positiveInt('--max-pods', value(), 5000);
        break;
      case '--version': {
        const v = value();
        if (!/^v\d+\.\d+\.\d+/.test(v))
          throw new ConfigError(`--version must look like v1.34.2+k3s1, got "${v}"`);
        args.version = v;
        break;
      }
      case '--pod-cidr':
      case '--service-cidr': {
        const v = value();
        try {
          parseCidr(v);
        } catch (e) {
          throw new ConfigError(`${flag}: ${(e as Error).message}`);
        }
        if (flag === '--pod-cidr') args.podCidr = v;
        else args.serviceCidr = v;
        break;
      }
      case '--insecure-http':
        args.insecureHttp = true;
        break;
      case '--legacy-discovery':
        args.compat.legacyDiscovery = true;
        break;
      case '--no-openapi':
        args.compat.noOpenApi = true;
        break;
      case '--reject-protobuf':
        args.compat.rejectProtobuf = true;
        break;
      case '--faults': {
        const v = value();
        try {
          args.faults = parseFaultSpec(JSON.parse(v));
        } catch (e) {
          throw new ConfigError(`--faults: ${(e as Error).message}`);
        }
        break;
      }
      default:
        throw new ConfigError(`unknown flag ${arg}`);
    }
  }
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(args.mode === 'fleet' ? `${args.namePrefix}0001` : args.name))
    throw new ConfigError('cluster names must be lowercase letters, digits and dashes');
  if (args.mode === 'cluster' && !args.kubeconfigOut)
    throw new ConfigError('sim cluster needs --kubeconfig-out FILE');
  if (args.mode === 'fleet') {
    if (!args.kubeconfigDir) throw new ConfigError('sim fleet needs --kubeconfig-dir DIR');
    if (args.clusters === 0) throw new ConfigError('sim fleet needs --clusters N');
  }
  return args;
}

export interface RunningSim {
  server: SimServer;
  clusters: SimCluster[];
  close(): Promise<void>;
}

/** Starts what the arguments describe and writes the kubeconfigs; resolves once every cluster serves. */
export async function startSim(args: SimArgs): Promise<RunningSim> {
  const server = new SimServer({
    host: args.host,
    port: args.port,
    insecureHttp: args.insecureHttp,
    single: args.mode === 'cluster',
  });
  const names =
    args.mode === 'cluster'
      ? [args.name]
      : Array.from(
          { length: args.clusters },
          (_, i) => `${args.namePrefix}${String(i + 1).padStart(4, '0')}`,
        );
  const clusters: SimCluster[] = [];
  for (const name of names) {
    const options: SimClusterOptions = {
      name,
      nodes: args.nodes,
      requireToken: !args.insecureHttp,
      compat: args.compat,
    };
    if (args.maxPods) options.maxPods = args.maxPods;
    if (args.version) options.version = args.version;
    if (args.podCidr) options.podCidr = args.podCidr;
    if (args.serviceCidr) options.serviceCidr = args.serviceCidr;
    const cluster = await SimCluster.start(options);
    if (args.faults) cluster.faults.set(args.faults);
    server.add(cluster);
    clusters.push(cluster);
  }
  await server.listen();
  if (args.mode === 'cluster') {
    mkdirSync(dirname(args.kubeconfigOut!), { recursive: true });
    writeFileSync(args.kubeconfigOut!, server.kubeconfig(args.name), { mode: 0o600 });
  } else {
    mkdirSync(args.kubeconfigDir!, { recursive: true, mode: 0o700 });
    for (const c of clusters)
      writeFileSync(join(args.kubeconfigDir!, `${c.name}.kubeconfig`), server.kubeconfig(c.name), {
        mode: 0o600,
      });
  }
  return { server, clusters, close: () => server.close() };
}

export async function runSim(argv: string[]): Promise<void> {
  const args = parseSimArgs(argv);
  const started = Date.now();
  const sim = await startSim(args);
  const where = args.mode === 'cluster' ? args.kubeconfigOut : `${args.kubeconfigDir}/<name>.kubeconfig`;
  process.stderr.write(
    `fleethub sim: ${sim.clusters.length} cluster(s) on ${sim.server.url} in ${Date.now() - started} ms; kubeconfig: ${where}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await sim.close();
}
