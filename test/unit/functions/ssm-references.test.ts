import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ssmReferences } from '../../../src/adapters/aws/ssm-environment.js';

describe('ssmReferences', () => {
  const cases = [
    {
      name: 'each <NAME>_SSM_PARAMETER names the parameter for <NAME>',
      env: {
        SLACK_BOT_TOKEN_SSM_PARAMETER: '/kubemaint/prod/slack-bot-token',
        KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: ' /kubemaint/prod/config ',
      },
      want: {
        SLACK_BOT_TOKEN: '/kubemaint/prod/slack-bot-token',
        KUBEMAINT_CONFIG_YAML: '/kubemaint/prod/config',
      },
    },
    {
      name: 'a variable already set wins and is not read',
      env: { SLACK_BOT_TOKEN: 'xoxb-local', SLACK_BOT_TOKEN_SSM_PARAMETER: '/p' },
      want: {},
    },
    {
      name: 'an empty target counts as unset',
      env: { SLACK_BOT_TOKEN: ' ', SLACK_BOT_TOKEN_SSM_PARAMETER: '/p' },
      want: { SLACK_BOT_TOKEN: '/p' },
    },
    {
      name: "the SDKs' endpoint override and empty names are not references",
      env: {
        AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:1',
        X_SSM_PARAMETER: '',
        _SSM_PARAMETER: '/odd',
      },
      want: {},
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(Object.fromEntries(ssmReferences(c.env)), c.want));
  }
});
