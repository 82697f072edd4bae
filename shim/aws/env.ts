/** The Lambda's settings: loadLambdaEnv and its types live in the one env module beside the Node server's. */
export {
  LAMBDA_ENV_HELP,
  LambdaEnvError,
  loadLambdaEnv,
  MIN_SECRET_LENGTH,
  ORIGIN_VERIFY_HEADER,
  VIEWER_HOST_HEADER,
  type LambdaEnv,
} from '../env.ts';
