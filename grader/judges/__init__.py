"""One judge per topic: what an output of a command means, on a Spark or another machine, with one level and one
sentence per finding (issue 27).

A judge takes what a parser read (``grader.parsers``) and what is known of the host that printed it
(:func:`grader.judges.context.context`: a DGX Spark or another machine, how many machines the run spanned; each None
where unknown, and then a finding names the output that would decide), and returns ``(facts, findings)``
(:data:`grader.judges.model.Summary`). The uses read these judges: ``clusterlab explain`` registers each output kind
with its judge (``grader/explain/``: recognising a paste's outputs, and what a paste alone needs), and the checks'
facts call the same functions where a check grades the same thing (the PCIe link:
``grader.facts.lesson1.pcie_link_problem``; lesson 3's GPU links and paths: ``grader.facts.lesson3``; the persistent
addresses: ``grader.facts.lesson1.persistence_problems``), so that one output never gets two levels
(tests/test_explain_agrees.py compares them on the sim's recordings).

Topics:

- ``link``: addresses, subnets, MTU, routes, which netdev is which RDMA device, ethtool's speed and FEC, netplan;
- ``linktest``: ping (jumbo frames), iperf3, the kernel's link messages;
- ``hosts``: two hosts' outputs in one paste, compared (the same port cabled, one subnet per twin, netplan against
  what runs);
- ``pcie``: each ConnectX-7 twin's PCIe link (sysfs, ``lspci -vv``);
- ``roce``: RDMA devices, their state and GID tables; ``perftest``: ib_write_bw/ib_write_lat figures;
- ``nccl``: NCCL's transport and its WARN lines; ``busbw``: nccl-tests' and other benchmarks' bus bandwidth;
- ``launcher``: a Spark cluster launcher's interface picks;
- ``ray``: the Ray cluster; ``vllm``: vLLM's launch, KV cache and API; ``bench``: the lab's load tests;
- ``gpu``: nvidia-smi's tables, GPU paths, power and temperatures, NVLink, memory.

Shared: ``model`` (Finding, Section, Summary), ``context`` (what is known of the host), ``common`` (the finding
helpers and the catalogue's figures, read from checks/ranges.toml: no figure is written here).
"""
