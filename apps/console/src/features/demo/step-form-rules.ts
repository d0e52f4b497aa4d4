/** Seed section 5 (demo): an activity name is at most 20 letters, digits or Chinese characters. */
export const ACTIVITY_NAME_RULE = /^[A-Za-z0-9\u4e00-\u9fa5]{1,20}$/;
/** The promotion link starts with http:// (https:// accepted too). */
export const PROMOTION_URL_RULE = /^https?:\/\/\S+$/;
export const AD_TEXT_MAX = 200;
/** Demo group form: video bit rate and frame rate ranges. */
export const BIT_RATE = { min: 150, max: 1800 };
export const FRAME_RATE = { min: 1, max: 30 };
