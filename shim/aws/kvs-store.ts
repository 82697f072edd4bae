/**
 * SaltKeyStore over a CloudFront KeyValueStore (its data-plane API, signed with SigV4A). Every write names the store's
 * current ETag, as the API requires; a concurrent writer makes the write fail, and the next hourly run repeats it.
 */
import '@aws-sdk/signature-v4a';
import {
  CloudFrontKeyValueStoreClient,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  ListKeysCommand,
  PutKeyCommand,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import type { SaltKeyStore } from './edge-salt.ts';

/** The key-value store with ARN `kvsArn`. */
export class KvsSaltKeyStore implements SaltKeyStore {
  private etag: string | null = null;

  private readonly kvsArn: string;
  private readonly client: CloudFrontKeyValueStoreClient;
  constructor(kvsArn: string, client: CloudFrontKeyValueStoreClient = new CloudFrontKeyValueStoreClient({})) {
    this.kvsArn = kvsArn;
    this.client = client;
  }

  async list(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let next: string | undefined;
    do {
      const page = await this.client.send(new ListKeysCommand({ KvsARN: this.kvsArn, NextToken: next }));
      for (const item of page.Items ?? [])
        if (item.Key !== undefined && item.Value !== undefined) out.set(item.Key, item.Value);
      next = page.NextToken;
    } while (next !== undefined);
    return out;
  }

  async put(key: string, value: string): Promise<void> {
    const out = await this.client.send(
      new PutKeyCommand({ KvsARN: this.kvsArn, Key: key, Value: value, IfMatch: await this.currentEtag() }),
    );
    this.etag = out.ETag ?? null;
  }

  async delete(key: string): Promise<void> {
    const out = await this.client.send(
      new DeleteKeyCommand({ KvsARN: this.kvsArn, Key: key, IfMatch: await this.currentEtag() }),
    );
    this.etag = out.ETag ?? null;
  }

  private async currentEtag(): Promise<string> {
    if (this.etag === null) {
      const out = await this.client.send(new DescribeKeyValueStoreCommand({ KvsARN: this.kvsArn }));
      this.etag = out.ETag ?? null;
    }
    if (this.etag === null) throw new Error(`no ETag for key-value store ${this.kvsArn}`);
    return this.etag;
  }
}
