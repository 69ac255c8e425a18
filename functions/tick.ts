/**
 * Lambda entry of the tick (serverless.yml `tick`): EventBridge runs it every minute, and hourly with
 * `{kind: "skew-scan"}`. Cold start reads the config and secrets from SSM and opens the control
 * plane once; warm invocations reuse it. Everything else lives in tick-handler.ts and src/app.
 */
import { createLogger } from '../src/log.js';
import { loadLambdaConfig } from '../src/compose/lambda/lambda-config.js';
import { openLambdaControl } from '../src/compose/lambda/lambda-control.js';
import { createTickHandler } from '../src/compose/lambda/tick-handler.js';
import { openLambdaClusters } from '../src/compose/lambda/lambda-clusters.js';

const log = createLogger({
  service: 'kubemaint-tick',
  level: process.env.KUBEMAINT_LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info',
});

export const handler = createTickHandler({
  log,
  open: async () => {
    const { config, env } = await loadLambdaConfig(process.env);
    for (const line of config.deprecated ?? []) log.warn(line);
    // Several clusters: each ticked on its own connection, together (issue 22).
    if (config.clusters) return openLambdaClusters(config, env, log);
    return openLambdaControl(config, env, log);
  },
});
