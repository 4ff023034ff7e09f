// `fleethub agent`: runs a cluster's or a host's agent until SIGTERM/SIGINT, logging JSON lines to stderr.
import { pino } from 'pino';
import { agentConfig } from '../agent/config.js';
import { startAgent, type AgentDeps } from '../agent/agent.js';
import { KubeClient } from '../kube/client.js';

export async function runAgent(argv: string[]): Promise<void> {
  const config = agentConfig(argv);
  const logger = pino({ level: config.logLevel, base: { pid: process.pid } }, pino.destination(2));
  const deps: AgentDeps = { connect: (c) => new KubeClient(c), logger };
  if (config.kubeconfig) {
    deps.target = KubeClient.fromKubeconfig(config.kubeconfig);
    const { workLoop } = await import('../agent/works.js');
    deps.workLoop = workLoop;
  }
  const agent = await startAgent(config, deps);
  process.stderr.write(`fleethub agent running as ${agent.username}\n`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'agent stopping');
    agent.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'agent stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
