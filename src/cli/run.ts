// The admin CLI's work, apart from the process it runs in: parse the command line, open the database,
// run the command's entry (src/cli/commands/), and turn a refusal into the usage or a one-line reason.
// main.ts runs it on the process's own arguments, environment and streams; the tests run it on theirs
// in the test process (test/helpers/cli.ts), so a command's behaviour is tested without starting a
// program each time.
import type { Writable } from 'node:stream';
import { pino } from 'pino';
import { ConfigError, parseConfig } from '../config.js';
import { initORM } from '../db/orm.js';
import { AppError } from '../lib/errors.js';
import { createLogger } from '../lib/logger.js';
import { terminalSafe } from '../lib/text.js';
import { createCommands } from '../commands.js';
import { createServices } from '../services.js';
import { createTemporalClient } from '../temporal/client.js';
import { Args, UsageError, parseCommandLine } from './args.js';
import type { CliCommand, CliOutput } from './command.js';
import { accessCommands } from './commands/access.js';
import { operationCommands } from './commands/operations.js';
import { organisationCommands } from './commands/organisations.js';

/** Every command, in the order the usage lists them. */
const COMMANDS: Record<string, CliCommand> = { ...organisationCommands, ...accessCommands, ...operationCommands };

const USAGE = `Usage: npm run cli -- <command> [options] [--json]

${Object.values(COMMANDS)
  .map((c) => c.usage)
  .join('\n')}

Bad usage or a refused request exits with code 2.`;

/**
 * One run of the CLI: `argv` the arguments after the program's name, `env` its environment, `io` where
 * its output and errors go. Resolves to its exit code: 0, 1 (failed), 2 (bad usage or a refused request).
 */
export async function runCommandLine(argv: string[], env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const say = (stream: Writable, text: string) => stream.write(`${text}\n`);
  const parsed = parseCommandLine(argv);
  if (parsed instanceof UsageError) {
    say(io.stderr, `error: ${parsed.message}\n\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  const args = new Args(values, io.stdout);
  const command = positionals[0];
  if (!command || values.help) {
    say(io.stdout, USAGE);
    return command ? 0 : 1;
  }

  let config;
  try {
    config = parseConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    say(io.stderr, err.message);
    return 1;
  }
  const orm = await initORM(config.DATABASE_URL);
  let temporal: ReturnType<typeof createTemporalClient> | undefined;
  try {
    // Logs go to stderr: stdout carries the command's output (--json, an export's lines).
    const logs = io.stderr === process.stderr ? pino.destination({ fd: 2, sync: true }) : io.stderr;
    const logger = createLogger(config.LOG_LEVEL, 'cli', logs);
    const services = createServices(orm.em.fork(), { config, logger });
    const entry = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!entry) throw new UsageError(`unknown command '${command}'`);
    const code = await entry.run({
      args,
      stdout: io.stdout,
      services,
      commands: () => {
        temporal ??= createTemporalClient(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
        return createCommands(services, { client: temporal.client, config, logger });
      },
      config,
      orm,
      consoleOrigin: () => (config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : `http://localhost:${config.PORT}`),
    });
    return code ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      say(io.stderr, `error: ${terminalSafe(err.message)}\n\n${USAGE}`);
      return 2;
    } else if (err instanceof AppError && err.status < 500) {
      // The service refused what was asked (no such record, wrong plan, not enough credits): the
      // operator's input, so exit 2 like bad usage, with the service's one-line reason.
      say(io.stderr, `error: ${terminalSafe(err.message)}`);
      return 2;
    } else {
      say(io.stderr, terminalSafe(err instanceof Error ? err.message : String(err)));
      return 1;
    }
  } finally {
    await temporal?.connection.close();
    await orm.close();
  }
}
