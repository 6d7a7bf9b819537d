"""torch.utils.data._utils.worker: get_worker_info. torchlite's DataLoader loads in the main process
(num_workers > 0 runs in-process), so there is never a worker process and this returns None, as
torch's does in the main process."""

__all__ = ["get_worker_info"]


def get_worker_info():
    """None: the caller is not in a DataLoader worker process."""
    return None
