import { DefaultLogger, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../lib/logger.js';

/** The Temporal SDK's own log lines (its Rust core's included) through our logger, at our level. */
export function sdkLogger(level: string, logger: Logger): DefaultLogger {
  const sdkLevel: LogLevel =
    ({ trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN' } as const)[level as 'info'] ?? 'ERROR';
  return new DefaultLogger(sdkLevel, ({ level: at, message, meta }) => {
    const method = ({ TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const)[at];
    logger[method]({ sdk: meta }, message);
  });
}
