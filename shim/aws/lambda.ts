/**
 * The Lambda entry point (`index.handler` of the bundle). The environment is parsed here, during the init phase: a bad
 * value fails the cold start with a message naming every bad variable, before any request is answered.
 */
import { LambdaEnvError, loadLambdaEnv } from '../edge/env.ts';
import { createHandler, type FunctionUrlHandler } from './handler.ts';
import { logJson } from '../edge/log-line.ts';

function init(): FunctionUrlHandler {
  try {
    return createHandler(loadLambdaEnv(process.env));
  } catch (err) {
    if (err instanceof LambdaEnvError) logJson({ type: 'cold_start_error', message: err.message });
    throw err;
  }
}

/** Handles one Function URL event (payload format 2.0). */
export const handler: FunctionUrlHandler = init();
