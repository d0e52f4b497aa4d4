import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { E2E } from '../env';
import { admin, api, exclusive, newUser, signIn, toast, tokenFor, uniqueName } from '../support';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;

interface Received {
  to: string[];
  user: string | undefined;
  mail: ParsedMail;
}

/** A real SMTP server on 127.0.0.1 (the port E2E.smtpPorts names) that requires AUTH and refuses one mailbox with 550. */
async function smtpServer(user: string, pass: string, refused: string) {
  const received: Received[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === user && auth.password === pass) cb(null, { user });
      else cb(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, cb) {
      if (address.address !== refused) return cb();
      const err = new Error('Mailbox unavailable') as Error & { responseCode: number };
      err.responseCode = 550;
      cb(err);
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            user: typeof session.user === 'string' ? session.user : undefined,
            mail,
          });
          cb();
        })
        .catch((err: Error) => cb(err));
    },
  });
  // The port the server's OUTBOUND_ALLOW names (E2E.smtpPorts): any other would be refused with 40004.
  await new Promise<void>((resolve) => server.listen(E2E.smtpPorts.settings, '127.0.0.1', () => resolve()));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The bodies of every API answer the page receives, to prove a secret never travels back to the browser. */
function recordApiAnswers(page: Page): string[] {
  const bodies: string[] = [];
  page.on('response', (res) => {
    if (!res.url().includes('/api/')) return;
    res
      .text()
      .then((text) => bodies.push(text))
      .catch(() => undefined);
  });
  return bodies;
}

const field = (page: Page, label: string) =>
  page.locator('.arco-tabs-content-item-active').getByLabel(label, { exact: true });

test('admin saves email settings for a local SMTP server, sends a test mail, and the password never comes back', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const account = `${uniqueName('alerts')}@cellhub.test`;
  const password = `Smtp-${uniqueName('pw')}`;
  const refused = 'nobody@cellhub.test';
  const smtp = await smtpServer(account, password, refused);
  const answers = recordApiAnswers(page);
  try {
    await exclusive('email-settings', async () => {
      await signIn(page, admin.username, admin.password);
      await page.goto('/system/setting');
      await expect(page.getByRole('tab', { name: '短信' })).toBeVisible();
      await page.getByRole('tab', { name: '邮件' }).click();
      await expect(page).toHaveURL(/tab=email/);

      await field(page, 'SMTP 服务器').fill('127.0.0.1');
      // Off: a plain local server. Another spec may have saved the email settings already (SSL off or on).
      const ssl = field(page, 'SSL');
      if ((await ssl.getAttribute('aria-checked')) === 'true') await ssl.click();
      await expect(ssl).toHaveAttribute('aria-checked', 'false');
      await field(page, '端口').fill(String(smtp.port));
      await field(page, '发件账号').fill(account);
      await field(page, '发件人名称').fill('Cellhub 告警');
      await field(page, '密码 / 授权码').fill(password);
      await page.getByRole('button', { name: '保存' }).click();
      await expect(toast(page, '已保存')).toBeVisible();

      // After the save the password field is empty again and says a password is set.
      await expect(field(page, '密码 / 授权码')).toHaveValue('');
      await expect(field(page, '密码 / 授权码')).toHaveAttribute('placeholder', '已设置（留空则不修改）');

      // A reload shows the saved settings; the password stays masked.
      await page.reload();
      await expect(field(page, 'SMTP 服务器')).toHaveValue('127.0.0.1');
      await expect(field(page, '端口')).toHaveValue(String(smtp.port));
      await expect(field(page, '发件账号')).toHaveValue(account);
      await expect(field(page, '密码 / 授权码')).toHaveValue('');
      await expect(field(page, 'SSL')).toHaveAttribute('aria-checked', 'false');

      // Send a test mail: it reaches the local SMTP server, signed in with the saved account and password.
      const to = `${uniqueName('inbox')}@example.com`;
      await page.getByRole('button', { name: '发送测试' }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog.getByText('发送测试邮件')).toBeVisible();
      await dialog.getByLabel('收件邮箱').fill(to);
      await dialog.getByRole('button', { name: '发送' }).click();
      await expect(toast(page, '测试消息已发送')).toBeVisible();
      await expect(dialog).toBeHidden();
      await expect.poll(() => smtp.received.length).toBe(1);
      const [mail] = smtp.received;
      expect(mail!.to).toEqual([to]);
      expect(mail!.user).toBe(account);
      expect(mail!.mail.subject).toBe('Cellhub test message');
      expect(mail!.mail.from?.value[0]).toEqual({ address: account, name: 'Cellhub 告警' });
      expect(mail!.mail.text).toContain('the email channel works');

      // A mailbox the server refuses: the dialog stays open with the code's text and the server's reason.
      await page.getByRole('button', { name: '发送测试' }).click();
      await dialog.getByLabel('收件邮箱').fill(refused);
      await dialog.getByRole('button', { name: '发送' }).click();
      const error = dialog.getByTestId('system-setting-test-error');
      await expect(error).toContainText('邮箱验证码发送失败');
      await expect(error).toContainText('550');
      await dialog.getByRole('button', { name: '取消' }).click();
      expect(smtp.received).toHaveLength(1);

      // The API agrees (still inside the exclusive part: another spec may save the email settings after it).
      const token = await tokenFor(admin.username, admin.password);
      const view = await api<{ email: Record<string, unknown> }>(
        'GET',
        '/api/system/settings',
        undefined,
        token,
      );
      expect(view.body.data.email).toMatchObject({
        account,
        password: '******',
        ssl: false,
        port: smtp.port,
      });
      expect(JSON.stringify(view.body)).not.toContain(password);
    });

    // No answer the page ever got carried the password.
    expect(answers.length).toBeGreaterThan(3);
    for (const body of answers) expect(body).not.toContain(password);
    expect(await page.content()).not.toContain(password);
  } finally {
    await smtp.close();
  }
});

test('role user cannot open the system settings or call their API', async ({ page }) => {
  const user = await newUser('nosys');
  const token = await tokenFor(user.username, user.password);
  const res = await api('GET', '/api/system/settings', undefined, token);
  expect(res.status).toBe(400);
  expect(res.body.code).toBe(10108);
  await signIn(page, user.username, user.password);
  await page.goto('/system/setting');
  await page.waitForURL(/\/dashboard\/workplace$/);
});

async function pageFor(browser: Browser, lang: 'zh-CN' | 'en-US', dark: boolean): Promise<Page> {
  const context = await browser.newContext({ baseURL: E2E.baseURL, viewport: { width: 1280, height: 860 } });
  await context.addInitScript(
    ([l, d]) => {
      localStorage.setItem('arco-locale', l as string);
      if (d) sessionStorage.setItem('cellhub-app-settings', JSON.stringify({ theme: 'dark' }));
    },
    [lang, dark] as const,
  );
  return context.newPage();
}

async function shot(page: Page, name: string): Promise<void> {
  await page.mouse.move(0, 0);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(SHOTS!, `${name}.png`) });
}

// A manual run with E2E_SCREENSHOTS_DIR set writes docs/screenshots/system-setting-*.png (both languages, dark);
// it is not a test, so it is not registered otherwise.
const screenshotRun = SHOTS ? test : undefined;
screenshotRun?.('screenshots of the system settings page', async ({ browser }) => {
  test.setTimeout(120_000);
  const token = await tokenFor(admin.username, admin.password);
  await exclusive('email-settings', async () => {
    const saves: [string, Record<string, unknown>][] = [
      [
        'sms',
        {
          provider: 'aliyun',
          access_key_id: 'LTAI5tDemoKeyId',
          access_key_secret: 'demo-secret',
          sign_name: '蜂窝物联',
          template_verify_code: 'SMS_465900001',
          template_alert_raise: 'SMS_465900002',
          template_alert_recover: 'SMS_465900003',
          template_sim_expiry: 'SMS_465900004',
          template_sim_data_low: 'SMS_465900005',
        },
      ],
      [
        'email',
        {
          host: 'smtp.exmail.qq.com',
          port: 465,
          ssl: true,
          account: 'alerts@cellhub.example',
          nickname: 'Cellhub 告警',
          password: 'demo-password',
        },
      ],
      ['wechat', { appid: 'wx5f0c1d2e3a4b5c6d', secret: 'demo-secret', template_id: 'kJ3p9Xo2_alert_tpl' }],
    ];
    for (const [channel, body] of saves) {
      const r = await api('PUT', `/api/system/settings/${channel}`, body, token);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    for (const [lang, tag, dark] of [
      ['zh-CN', 'zh', false],
      ['en-US', 'en', false],
      ['zh-CN', 'dark', true],
    ] as const) {
      const page = await pageFor(browser, lang, dark);
      await signIn(page, admin.username, admin.password);
      for (const tab of ['sms', 'email', 'wechat'] as const) {
        await page.goto(`/system/setting?tab=${tab}`);
        await expect(page.locator('.arco-tabs-content-item-active form')).toBeVisible();
        await shot(page, `system-setting-${tab}-${tag}`);
        if (dark) break;
      }
      if (!dark) {
        await page.goto('/system/setting?tab=email');
        await page.getByRole('button', { name: lang === 'zh-CN' ? '发送测试' : 'Send test' }).click();
        await expect(page.getByRole('dialog')).toBeVisible();
        await shot(page, `system-setting-test-${tag}`);
      }
      await page.context().close();
    }
  });
});
