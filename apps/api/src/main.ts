import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startApiServer } from './api.server';
import { ConfigValidationError } from './config/api-config';

/** `npm start`: the admin server on the environment's settings; exits 1 with the reason on failure. */
async function main(): Promise<void> {
  const logger = new Logger('agent-memory');
  try {
    const server = await startApiServer();
    logger.log(
      `${server.config.backend} backend; admin API on ${server.url}/api (docs: ${server.url}/api/docs)`,
    );
    if (server.token?.generated) {
      // The token is printed on purpose: without MEMORY_ADMIN_TOKEN it is the only way in.
      console.log(
        `MEMORY_ADMIN_TOKEN is not set: made a random token for this run. Open the dashboard at\n${server.dashboardUrl}`,
      );
    } else {
      console.log(
        `Dashboard: ${server.url}/ (bearer token from MEMORY_ADMIN_TOKEN or a named token)`,
      );
    }
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      console.error(error.message);
    } else {
      console.error(
        `the admin server could not start: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    process.exit(1);
  }
}

void main();
