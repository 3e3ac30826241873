"""Explain kinds for lesson 2a: RoCE naming and NCCL transport (rdma link, sysfs, show_gids, ibstat,
ib_write_bw/lat, nccl-tests, NCCL_DEBUG=INFO logs). Registered on import by grader.explain."""
