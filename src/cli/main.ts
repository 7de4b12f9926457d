// Admin CLI: `npm run cli -- <command> [options] [--json]`. See docs/operations.md, "Admin CLI". Each command is an
// entry of a table (src/cli/commands/): its usage lines and what it runs; this file parses the command
// line, opens the database, runs the entry, and turns a refusal into the usage or a one-line reason.
import { pino } from 'pino';
import { configOrExit } from '../config.js';
import { initORM } from '../db/orm.js';
import { AppError } from '../lib/errors.js';
import { createLogger } from '../lib/logger.js';
import { terminalSafe } from '../lib/text.js';
import { createCommands } from '../commands.js';
import { createServices } from '../services.js';
import { createTemporalClient } from '../temporal/client.js';
import { Args, UsageError, parseCommandLine } from './args.js';
import type { CliCommand } from './command.js';
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

const { positionals, values } = parseCommandLine(USAGE);
const args = new Args(values);
const command = positionals[0];
if (!command || values.help) {
  console.log(USAGE);
  process.exit(command ? 0 : 1);
}

const config = configOrExit();
const orm = await initORM(config.DATABASE_URL);
let temporal: ReturnType<typeof createTemporalClient> | undefined;
try {
  // Logs go to stderr: stdout carries the command's output (--json, an export's lines).
  const logger = createLogger(config.LOG_LEVEL, 'cli', pino.destination({ fd: 2, sync: true }));
  const services = createServices(orm.em.fork(), { config, logger });
  const entry = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!entry) throw new UsageError(`unknown command '${command}'`);
  await entry.run({
    args,
    services,
    commands: () => {
      temporal ??= createTemporalClient(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
      return createCommands(services, { client: temporal.client, config, logger });
    },
    config,
    orm,
    consoleOrigin: () => (config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : `http://localhost:${config.PORT}`),
  });
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`error: ${terminalSafe(err.message)}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (err instanceof AppError && err.status < 500) {
    // The service refused what was asked (no such record, wrong plan, not enough credits): the
    // operator's input, so exit 2 like bad usage, with the service's one-line reason.
    console.error(`error: ${terminalSafe(err.message)}`);
    process.exitCode = 2;
  } else {
    console.error(terminalSafe(err instanceof Error ? err.message : String(err)));
    process.exitCode = 1;
  }
} finally {
  await temporal?.connection.close();
  await orm.close();
}
