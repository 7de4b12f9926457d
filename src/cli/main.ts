// Admin CLI: `npm run cli -- <command> [options] [--json]`. See docs/operations.md, "Admin CLI". Each command is an
// entry of a table (src/cli/commands/): its usage lines and what it runs; run.ts parses the command
// line, opens the database, runs the entry, and turns a refusal into the usage or a one-line reason.
import { runCommandLine } from './run.js';

process.exitCode = await runCommandLine(process.argv.slice(2), process.env, {
  stdout: process.stdout,
  stderr: process.stderr,
});
