import { useNavigate } from 'react-router';
import { SceneList } from '../components/scene-list';

/** /scene/list — the caller's scenes and the scenes shared with them. */
export default function SceneListPage() {
  const navigate = useNavigate();
  return <SceneList area="scene" onCreate={() => void navigate('/scene/create')} />;
}
