import { index, integer, jsonb, pgTable, primaryKey, serial, text } from 'drizzle-orm/pg-core';
import type { ModelDocument, SceneDocument, SceneSlot } from '@cellhub/contract/scenes';
import { createdat, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

/**
 * Scene models (issue 17): a reusable canvas whose widgets bind to named slots (`{ slot, key }`); each slot is typed
 * by a product key or a data template id. A model used by scenes cannot be deleted (83004; the key restricts too).
 */
export const sceneModels = pgTable(
  'scene_models',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    remark: text('remark').notNull().default(''),
    slots: jsonb('slots').$type<SceneSlot[]>().notNull().default([]),
    document: jsonb('document').$type<ModelDocument>().notNull(),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('scene_models_uid_idx').on(t.uid, t.id)],
);
export type SceneModelRow = typeof sceneModels.$inferSelect;

/**
 * A scene: a canvas whose widgets bind to concrete device properties (`{ sn, key }`). `model_id` is the model it was
 * made from (null when drawn directly).
 */
export const scenes = pgTable(
  'scenes',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    remark: text('remark').notNull().default(''),
    modelId: integer('model_id').references(() => sceneModels.id, { onDelete: 'restrict' }),
    document: jsonb('document').$type<SceneDocument>().notNull(),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('scenes_uid_idx').on(t.uid, t.id), index('scenes_model_idx').on(t.modelId)],
);
export type SceneRow = typeof scenes.$inferSelect;

/** The devices a scene's document names (bindings and links), derived on every write of the document. */
export const sceneDevices = pgTable(
  'scene_devices',
  {
    sceneId: integer('scene_id')
      .notNull()
      .references(() => scenes.id, { onDelete: 'cascade' }),
    sn: text('sn').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sceneId, t.sn] }), index('scene_devices_sn_idx').on(t.sn)],
);

/**
 * A scene's read-only shares: the grantee sees the scene; each bound device still needs its own view right (a
 * scene never widens device access).
 */
export const sceneShares = pgTable(
  'scene_shares',
  {
    sceneId: integer('scene_id')
      .notNull()
      .references(() => scenes.id, { onDelete: 'cascade' }),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    right: text('right', { enum: ['view'] })
      .notNull()
      .default('view'),
    createdat: createdat(),
  },
  (t) => [primaryKey({ columns: [t.sceneId, t.uid] }), index('scene_shares_uid_idx').on(t.uid)],
);

/** Images uploaded to a scene (background, image widgets), stored at DATA_DIR/files/scenes/<file_id>. */
export const sceneImages = pgTable(
  'scene_images',
  {
    fileId: text('file_id').primaryKey(),
    sceneId: integer('scene_id')
      .notNull()
      .references(() => scenes.id, { onDelete: 'cascade' }),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    createdat: createdat(),
  },
  (t) => [index('scene_images_scene_idx').on(t.sceneId)],
);
