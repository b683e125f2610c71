import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectVersions } from '../../src/repository/version-policy.js';

test('latest N, all and specific version policies', () => {
  assert.deepEqual(selectVersions({}, [3, 1, 2]), [3]);
  assert.deepEqual(selectVersions({ latest: { num_versions: 2 } }, [1, 2, 3]), [2, 3]);
  assert.deepEqual(selectVersions({ latest: { num_versions: 5 } }, [1, 2]), [1, 2]);
  assert.deepEqual(selectVersions({ all: {} }, [2, 1]), [1, 2]);
  assert.deepEqual(selectVersions({ specific: { versions: [1, 3, 9] } }, [1, 2, 3]), [1, 3]);
  assert.deepEqual(selectVersions({}, []), []);
});
