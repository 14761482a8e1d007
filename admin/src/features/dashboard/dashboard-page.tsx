import { useDocumentTitle } from '../../lib/page';
import { RecentActivity } from './activity-list';
import { StatusCounts, TagCounts } from './stats-panels';

/** The blog at a glance: posts by status and by tag, and what changed lately (loaded on demand). */
export default function DashboardPage() {
  useDocumentTitle('Dashboard');
  return (
    <>
      <h1>Dashboard</h1>
      <div className="panels">
        <StatusCounts />
        <TagCounts />
        <RecentActivity />
      </div>
    </>
  );
}
