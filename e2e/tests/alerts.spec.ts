import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { admin, api, exclusive, newUser, signIn, toast, tokenFor, uniqueName } from '../support';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;

/** Writes docs/screenshots/alert-*.png when E2E_SCREENSHOTS_DIR is set (a manual run); otherwise nothing. */
async function shot(page: Page, name: string, tall = false) {
  if (!SHOTS) return;
  await page.mouse.move(720, 880);
  // No toast of the last action in the picture.
  await expect(page.locator('.arco-message')).toHaveCount(0, { timeout: 8000 });
  // A long form in a taller window (the layout scrolls inside, so a full-page capture would cut it).
  if (tall) await page.setViewportSize({ width: 1440, height: 1240 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  if (tall) await page.setViewportSize({ width: 1440, height: 900 });
}

/** A real SMTP server on 127.0.0.1 (the port E2E.smtpPorts names) that requires AUTH with the given account. */
async function smtpServer(user: string, pass: string) {
  const received: { to: string[]; mail: ParsedMail }[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === user && auth.password === pass) cb(null, { user });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((mail) => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail });
          cb();
        })
        .catch((err: Error) => cb(err));
    },
  });
  // The port the server's OUTBOUND_ALLOW names (E2E.smtpPorts): any other would be refused with 40004.
  await new Promise<void>((resolve) => server.listen(E2E.smtpPorts.alerts, '127.0.0.1', () => resolve()));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    /** Mails to `to` so far. */
    to: (address: string) => received.filter((m) => m.to.includes(address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function pick(page: Page, testId: string, text: string, type?: string) {
  const select = page.getByTestId(testId);
  await select.click();
  if (type) await page.keyboard.type(type);
  await page
    .locator('.arco-select-popup:visible .arco-select-option')
    .filter({ hasText: text })
    .first()
    .click();
}

test('a contact verifies its email, a trigger on a devsim device raises an alert over the threshold and recovers, both mailed', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const account = `${uniqueName('alerts')}@cellhub.test`;
  const password = `Smtp-${uniqueName('pw')}`;
  const smtp = await smtpServer(account, password);
  const inbox = `${uniqueName('oncall')}@example.com`;
  const user = await newUser('alert');
  const token = await tokenFor(user.username, user.password);

  // A product with a temperature property and one devsim device reporting 20 °C.
  const product = await api<{ product_key: string }>(
    'POST',
    '/api/products',
    {
      name: 'Cold chain DTU',
      properties: [{ key: 'temperature', name: '温度', name_us: 'Temperature', unit: '°C' }],
    },
    token,
  );
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  const sn = uniqueName('AL').toUpperCase();
  expect(
    (await api('POST', '/api/devices', { product_key: product.body.data.product_key, sn: [sn] }, token))
      .status,
  ).toBe(200);
  await api('PUT', `/api/devices/${sn}`, { name: '3号冷库' }, token);
  const detail = await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, token);
  const device = new VirtualDevice(
    { sn, product_key: product.body.data.product_key, secret: detail.body.data.secret },
    { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30 },
  );

  try {
    await exclusive('email-settings', async () => {
      // The admin points the email channel at the test's SMTP server through the system settings API.
      const adminToken = await tokenFor(admin.username, admin.password);
      const saved = await api(
        'PUT',
        '/api/system/settings/email',
        { host: '127.0.0.1', port: smtp.port, account, nickname: 'Cellhub 告警', ssl: false, password },
        adminToken,
      );
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);

      await device.connect();
      await device.report({ temperature: 20 });
      await signIn(page, user.username, user.password);

      // 1. A contact with an email, verified by the code the mail carries.
      await page.goto('/alert/contact/create');
      await page.getByTestId('alert-contact-name').fill('值班 Ops');
      await page.getByTestId('alert-contact-email').fill(inbox);
      await page.getByTestId('alert-contact-save').click();
      await expect(page).toHaveURL(/\/alert\/contact\/edit\/\d+$/);
      const verifyEmail = page.getByTestId('alert-verify-email');
      await expect(verifyEmail.getByTestId('alert-unverified')).toBeVisible();
      await verifyEmail.getByRole('button', { name: '获取验证码' }).click();
      await expect(toast(page, `验证码已发送到 ${inbox}`)).toBeVisible();
      await shot(page, 'alert-contact-verify-zh');
      await expect.poll(() => smtp.to(inbox).length).toBe(1);
      const code = /(\d{6})/.exec(smtp.to(inbox)[0]!.mail.subject ?? '')?.[1];
      expect(code).toMatch(/^\d{6}$/);
      expect(smtp.to(inbox)[0]!.mail.text).toContain(code!);
      await verifyEmail.getByPlaceholder('6 位验证码').fill(code === '000000' ? '111111' : '000000');
      await verifyEmail.getByRole('button', { name: '验证' }).click();
      await expect(verifyEmail).toContainText('邮箱验证码错误');
      await verifyEmail.getByPlaceholder('6 位验证码').fill(code!);
      await verifyEmail.getByRole('button', { name: '验证' }).click();
      await expect(toast(page, '验证成功')).toBeVisible();
      await expect(verifyEmail.getByTestId('alert-verified')).toBeVisible();
      await shot(page, 'alert-contact-verified-zh');

      await page.goto('/alert/contact/list');
      const contactRow = page.locator('tbody tr').filter({ hasText: '值班 Ops' });
      await expect(contactRow.getByTestId('alert-verified')).toBeVisible();

      // 2. A trigger "temperature greater than B = 30" on the devsim device, pushing to the contact.
      await page.goto('/alert/device-trigger/create');
      await page.getByTestId('alert-trigger-name').fill('冷库超温');
      await pick(page, 'alert-device-select', sn, sn);
      await expect(page.getByTestId('alert-trigger-type')).toContainText('大于 B');
      // The seed's rule, checked before anything is sent: B is needed for "greater than B".
      await pick(page, 'alert-trigger-key', '温度 (temperature)');
      await page.getByTestId('alert-trigger-save').click();
      await expect(page.getByText('请输入值 B（上限）')).toBeVisible();
      await page.getByLabel('值 B（上限）').fill('30');
      await page.getByLabel('告警内容').fill('{device} {property} {value} °C，超过 30 °C（{time}）');
      await page.getByLabel('恢复内容').fill('{device} {property} 已恢复到 {value} °C');
      await pick(page, 'alert-contact-select', '值班 Ops');
      await page.keyboard.press('Escape');
      await shot(page, 'alert-trigger-edit-zh', true);
      await page.getByTestId('alert-trigger-save').click();
      await expect(page).toHaveURL(/\/alert\/device-trigger\/list$/);
      const triggerRow = page.locator('tbody tr').filter({ hasText: '冷库超温' });
      await expect(triggerRow).toContainText('温度 > 30');
      await expect(triggerRow.getByTestId('alert-trigger-state')).toHaveText('正常');

      // 3. Over the threshold: the alert shows in the history and the email arrives.
      await device.report({ temperature: 35.5 });
      await page.getByRole('tab', { name: '告警记录' }).click();
      await expect(page).toHaveURL(/tab=history/);
      const alertRow = page.locator('tbody tr').filter({ hasText: '冷库超温' });
      await expect(alertRow.getByTestId('alert-history-status')).toHaveText('告警中');
      await expect(alertRow.getByTestId('alert-raised-value')).toHaveText('35.5');
      await expect.poll(() => smtp.to(inbox).length, { timeout: 20_000 }).toBe(2);
      const raised = smtp.to(inbox)[1]!.mail;
      expect(raised.subject).toBe(`[Cellhub] 告警 Alert: 冷库超温 (3号冷库)`);
      expect(raised.text).toMatch(/^3号冷库 温度 35\.5 °C，超过 30 °C（\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC）/);
      await shot(page, 'alert-history-active-zh');

      // Still over: kept active, no second mail (push once).
      await device.report({ temperature: 36 });
      await page.getByRole('tab', { name: '触发器' }).click();
      await expect(
        page.locator('tbody tr').filter({ hasText: '冷库超温' }).getByTestId('alert-trigger-state'),
      ).toHaveText('告警中');
      await shot(page, 'alert-trigger-list-zh');

      // 4. Back to normal: recovered once, the recovery mail arrives; then acknowledged.
      await device.report({ temperature: 22 });
      await page.getByRole('tab', { name: '告警记录' }).click();
      await expect(alertRow.getByTestId('alert-history-status')).toHaveText('已恢复');
      await expect(alertRow.getByTestId('alert-recovered-value')).toHaveText('22');
      await expect.poll(() => smtp.to(inbox).length, { timeout: 20_000 }).toBe(3);
      const recovered = smtp.to(inbox)[2]!.mail;
      expect(recovered.subject).toBe(`[Cellhub] 恢复 Recovered: 冷库超温 (3号冷库)`);
      expect(recovered.text?.trim()).toBe('3号冷库 温度 已恢复到 22 °C');
      await alertRow.getByRole('button', { name: '确认' }).click();
      await expect(toast(page, '已确认 1 条告警')).toBeVisible();
      await expect(alertRow).toContainText(user.username);
      await expect(page.locator('tbody tr').filter({ hasText: '冷库超温' })).toHaveCount(1);
      await shot(page, 'alert-history-zh');

      // The API agrees: one alert, raised once and recovered once, three mails in all.
      const history = await api<
        { status: string; raised_value: number; recovered_value: number; push_count: number }[]
      >('GET', `/api/alert/history?sn=${sn}`, undefined, token);
      expect(history.body.data).toMatchObject([
        { status: 'recovered', raised_value: 35.5, recovered_value: 22, push_count: 2 },
      ]);
      expect(smtp.to(inbox)).toHaveLength(3);

      if (SHOTS) {
        // An alert configuration, the other pages in English and the history in dark, for docs/screenshots.
        const triggers = await api<{ id: number }[]>('GET', '/api/alert/triggers', undefined, token);
        const contacts = await api<{ id: number }[]>('GET', '/api/alert/contacts', undefined, token);
        await api(
          'POST',
          '/api/alert/configs',
          {
            name: '夜班值守',
            trigger_ids: [triggers.body.data[0]!.id],
            contact_ids: [contacts.body.data[0]!.id],
            methods: ['sms', 'email'],
            interval_s: 1800,
            push_mode: 'per_silence',
          },
          token,
        );
        await device.report({ temperature: 33 });
        await page.goto('/alert/config/list');
        await expect(page.locator('tbody tr').filter({ hasText: '夜班值守' })).toBeVisible();
        await shot(page, 'alert-config-list-zh');
        await page.goto('/alert/config/create');
        await shot(page, 'alert-config-edit-zh');
        await page.goto('/alert/contact/list');
        await shot(page, 'alert-contact-list-zh');
        await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
        await page.goto('/alert/device-trigger/list');
        await expect(page.getByRole('tab', { name: 'Alert history' })).toBeVisible();
        await shot(page, 'alert-trigger-list-en');
        await page.getByRole('tab', { name: 'Alert history' }).click();
        await expect(page.locator('tbody tr').first()).toBeVisible();
        await shot(page, 'alert-history-en');
        await page.getByTestId('navbar-theme').getByRole('button').click();
        await expect(page.locator('body')).toHaveAttribute('arco-theme', 'dark');
        await shot(page, 'alert-history-en-dark');
        await page.goto('/alert/contact/list');
        await shot(page, 'alert-contact-list-en-dark');
        await page.goto('/alert/device-trigger/edit/' + triggers.body.data[0]!.id);
        await expect(page.getByTestId('alert-trigger-name')).toHaveValue('冷库超温');
        await shot(page, 'alert-trigger-edit-en-dark', true);
        await page.goto('/alert/config/list');
        await shot(page, 'alert-config-list-en-dark');
      }
    });
  } finally {
    await device.close().catch(() => undefined);
    await smtp.close();
  }
});

test('another user sees none of the alerts pages’ data of the first and cannot attach their contact', async () => {
  const a = await newUser('alerta');
  const b = await newUser('alertb');
  const ta = await tokenFor(a.username, a.password);
  const tb = await tokenFor(b.username, b.password);
  const contact = await api<{ id: number }>(
    'POST',
    '/api/alert/contacts',
    { name: 'A', email: 'a@example.com' },
    ta,
  );
  expect(contact.status).toBe(200);
  const list = await api<unknown[]>('GET', '/api/alert/contacts', undefined, tb);
  expect(list.body.data).toEqual([]);
  const refused = await api('GET', `/api/alert/contacts/${contact.body.data.id}`, undefined, tb);
  expect(refused.status).toBe(400);
  expect(refused.body.code).toBe(10107);
});
