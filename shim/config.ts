/** The local server's settings: loadConfig and its types live in the one env module beside the Lambda's. */
export { ConfigError, ENV_HELP, loadConfig, type Config } from './env.ts';
