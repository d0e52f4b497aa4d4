/** Texts of the device location map (its own file: only the map's chunk needs them). */
export default {
  'zh-CN': {
    'deviceMap.offline': '地图瓦片已关闭（离线模式），设备位置：',
    'deviceMap.open': '在地图网站中查看：',
    'deviceMap.osm': 'OpenStreetMap',
    'deviceMap.amap': '高德地图',
  },
  'en-US': {
    'deviceMap.offline': 'Map tiles are off (offline mode). The device is at:',
    'deviceMap.open': 'Open in a map site:',
    'deviceMap.osm': 'OpenStreetMap',
    'deviceMap.amap': 'AMap (高德)',
  },
};
