"""Session 39f (issue 27): break-it review 18 of the rules added since 87494aa, mended. Each test feeds a faithful
variation of the real output a rule was made for (NVIDIA/nccl#207, vllm-project/vllm#16663, NVIDIA/cuda-samples#284,
club-3090#37, nccl-tests#37, Azure/azhpc-images#327, rfjakob/earlyoom#20) that the rule misread, and asserts the
careful engineer's reading; the tests of those rules on their own outputs (tests/test_explain_s39a.py, s39d.py,
s39.py) still hold."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import levels, messages

ORDER = ["ok", "info", "warn", "fail"]


def _kind(text: str, kind: str, **kw):
    return [x for x in explain(text, **kw) if x.kind == kind]


def _all(sections) -> str:
    return "\n".join(messages(s) for s in sections)


def _worst(sections) -> str:
    return max((lv for s in sections for lv in levels(s)), key=ORDER.index, default="ok")


P01 = """\
gpu2:46654:46654 [0] NCCL INFO Bootstrap : Using ib0:10.10.0.102<0>
gpu2:46654:46654 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.
gpu2:46654:46654 [0] NCCL INFO NET/Socket : Using [0]ib0:10.10.0.102<0>
gpu2:46654:46654 [0] NCCL INFO Using network Socket
NCCL version 2.14.3+cuda11.7
gpu2:46654:47150 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7
gpu2:46654:47150 [0] NCCL INFO Channel 00/0 : 0[1a000] -> 1[1b000] via P2P/IPC
gpu2:46657:47151 [3] NCCL INFO Channel 00/0 : 3[3e000] -> 4[1a000] [send] via NET/Socket/0
gpu2:46657:47151 [3] NCCL INFO Channel 01/0 : 3[3e000] -> 4[1a000] [send] via NET/Socket/0
gpu2:46654:47150 [0] NCCL INFO Connected all rings
gpu2:46654:47150 [0] NCCL INFO comm 0x5581d3a0 rank 0 nranks 8 cudaDev 0 busId 1a000 - Init COMPLETE

gpu2:46654:47260 [0] enqueue.cc:100 NCCL WARN Cuda failure 'out of memory'
gpu2:46654:47260 [0] NCCL INFO enqueue.cc:1009 -> 1
Traceback (most recent call last):
  File "train.py", line 212, in <module>
    dist.all_reduce(grad)
RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled cuda error, NCCL version 2.14.3
ncclUnhandledCudaError: Call to CUDA function failed.
Last error:
Cuda failure 'out of memory'
"""


P02 = """\
gpu2:46654:46654 [0] NCCL INFO NET/IB : Using interface ib0 for sideband communication
gpu2:46654:46654 [0] NCCL INFO NET/Socket : Using [0]ib0:203.0.113.102<0>
gpu2:46654:46654 [0] NCCL INFO Using network Socket
NCCL version 2.18.5+cuda12.2
gpu2:46654:47150 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC
gpu2:46657:47151 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [send] via NET/Socket/0
gpu2:46654:47150 [0] NCCL INFO Connected all rings
gpu2:46654:47150 [0] NCCL INFO comm 0x5581d3a0 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 1a000 commId 0x3f1c2a7be1a0c9d3 - Init COMPLETE

gpu2:46657:47302 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer gpu3<45678>
gpu2:46657:47302 [3] NCCL INFO misc/socket.cc:749 -> 6
gpu2:46657:47302 [3] NCCL INFO transport/net_socket.cc:474 -> 6
RuntimeError: NCCL communicator was aborted on rank 3. Original reason for failure was: NCCL error: remote process exited or there was a network error, NCCL version 2.18.5
ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
"""


P03 = """\
$ nvidia-smi -L
GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-3f6a1c2e-8d1b-4a55-9c1e-0b7e2f4d9a01)
GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-7b2d4e90-1c3a-4f6e-8a2b-5d9c0e1f2a02)
GPU 2: NVIDIA A100-SXM4-80GB (UUID: GPU-a1c3e5f7-2b4d-4c6e-9f1a-3b5d7e9f1a03)
GPU 3: NVIDIA A100-SXM4-80GB (UUID: GPU-c2e4f6a8-3d5f-4e7a-8b2c-4d6f8a0b2c04)
GPU 4: NVIDIA A100-SXM4-80GB (UUID: GPU-d3f5a7b9-4e6a-4f8b-9c3d-5e7a9b1c3d05)
GPU 5: NVIDIA A100-SXM4-80GB (UUID: GPU-e4a6b8c0-5f7b-4a9c-8d4e-6f8b0c2d4e06)
GPU 6: NVIDIA A100-SXM4-80GB (UUID: GPU-f5b7c9d1-6a8c-4b0d-9e5f-7a9c1d3e5f07)
GPU 7: NVIDIA A100-SXM4-80GB (UUID: GPU-a6c8d0e2-7b9d-4c1e-8f6a-8b0d2e4f6a08)
$ CUDA_VISIBLE_DEVICES=0,1 NCCL_DEBUG=INFO torchrun --nproc_per_node 2 train.py
ndv4-node0:31207:31207 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>
ndv4-node0:31207:31207 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/microsoft/ndv4-topo.xml
ndv4-node0:31207:31207 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /opt/microsoft/ndv4-graph.xml
NCCL version 2.18.3+cuda12.2
ndv4-node0:31207:31290 [0] NCCL INFO NET/IB : Using [0]mlx5_ib0:1/IB [1]mlx5_ib1:1/IB [2]mlx5_ib2:1/IB [3]mlx5_ib3:1/IB [4]mlx5_ib4:1/IB [5]mlx5_ib5:1/IB [6]mlx5_ib6:1/IB [7]mlx5_ib7:1/IB ; OOB eth0:10.0.0.4<0>
ndv4-node0:31207:31290 [0] NCCL INFO Using network IB
ndv4-node0:31207:31290 [0] NCCL INFO comm 0x55d0c8e0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0x8a3f2e1d0c9b7a65 - Init START
ndv4-node0:31207:31290 [0] NCCL INFO Loading graph from file /opt/microsoft/ndv4-graph.xml

ndv4-node0:31207:31290 [0] graph/search.cc:703 NCCL WARN XML Import Channel : dev 2 not found.
ndv4-node0:31207:31290 [0] NCCL INFO graph/search.cc:733 -> 2
ndv4-node0:31207:31290 [0] NCCL INFO graph/search.cc:740 -> 2
ndv4-node0:31207:31290 [0] NCCL INFO graph/search.cc:769 -> 2
ndv4-node0:31207:31290 [0] NCCL INFO init.cc:876 -> 2
ndv4-node0:31207:31290 [0] NCCL INFO init.cc:1396 -> 2
RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
"""


P04 = """\
# before starting vLLM
$ free -g
               total        used        free      shared  buff/cache   available
Mem:             225          14         183           0          28         209
Swap:              0           0           0
# after POST /sleep?level=1
$ free -g
               total        used        free      shared  buff/cache   available
Mem:             225          15         112          49          98         159
Swap:              0           0           0
# after POST /wake_up (fixed build, vllm#16663 patch applied)
$ free -g
               total        used        free      shared  buff/cache   available
Mem:             225          15         181           0          29         208
Swap:              0           0           0
# after POST /sleep?level=1 again (the model is asleep now, as intended)
$ free -g
               total        used        free      shared  buff/cache   available
Mem:             225          15         112          49          98         159
Swap:              0           0           0
"""


P06 = """\
$ for h in gpu-node1 gpu-node2 gpu-node3; do echo "== $h"; ssh $h free -g; done
== gpu-node1
               total        used        free      shared  buff/cache   available
Mem:             503          41         430           1          31         458
Swap:              0           0           0
== gpu-node2
               total        used        free      shared  buff/cache   available
Mem:             503          43         337          64         122         394
Swap:              0           0           0
== gpu-node3
               total        used        free      shared  buff/cache   available
Mem:             503          42         336          64         124         395
Swap:              0           0           0
"""


P07 = """\
$ ssh gpu-node1 free -g
               total        used        free      shared  buff/cache   available
Mem:             503          41         430           1          31         458
Swap:              0           0           0
$ ssh gpu-node2 free -g
               total        used        free      shared  buff/cache   available
Mem:             503          43         337          64         122         394
Swap:              0           0           0
$ ssh gpu-node3 free -g
               total        used        free      shared  buff/cache   available
Mem:             503          42         336          64         124         395
Swap:              0           0           0
"""


P09 = """\
$ ./p2pBandwidthLatencyTest
[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
Device: 0, Tesla K20m, pciBusID: 2, pciDeviceID: 0, pciDomainID:0
Device: 1, Tesla K20m, pciBusID: 3, pciDeviceID: 0, pciDomainID:0
Device=0 CAN Access Peer Device=1
Device=1 CAN Access Peer Device=0
Unidirectional P2P=Enabled Bandwidth Matrix (GB/s)
   D\\D     0      1
     0 143.62   5.83
     1   5.84 143.58
Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)
   D\\D     0      1
     0 145.01  10.42
     1  10.43 144.93
"""


P10 = """\
ubuntu@gpu-a:~$ nvidia-smi topo -m
	GPU0	GPU1	CPU Affinity	NUMA Affinity	GPU NUMA ID
GPU0	 X 	SYS	0-15,32-47	0		N/A
GPU1	SYS	 X 	16-31,48-63	1		N/A

ubuntu@gpu-b:~$ ./simpleP2P
[./simpleP2P] - Starting...
Checking for multiple GPUs...
CUDA-capable device count: 2

Checking GPU(s) for support of peer to peer memory access...
> Peer access from NVIDIA RTX A6000 (GPU0) -> NVIDIA RTX A6000 (GPU1) : Yes
> Peer access from NVIDIA RTX A6000 (GPU1) -> NVIDIA RTX A6000 (GPU0) : Yes
Enabling peer access between GPU0 and GPU1...
Allocating buffers (64MB on GPU0, GPU1 and CPU Host)...
Creating event handles...
cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 49.12GB/s
Preparing host buffer and memcpy to GPU0...
Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...
Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...
Copy data back to host from GPU0 and verify results...
Disabling peer access...
Shutting down...
Test passed
"""


P11 = """\
$ ./build/all_reduce_perf -b 1G -e 16G -f 2 -g 8
# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 8 minBytes 1073741824 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41822 on hgx-h100-07 device  0 [0000:18:00] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  41822 on hgx-h100-07 device  1 [0000:2a:00] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid  41822 on hgx-h100-07 device  2 [0000:3a:00] NVIDIA H100 80GB HBM3
#  Rank  3 Group  0 Pid  41822 on hgx-h100-07 device  3 [0000:5d:00] NVIDIA H100 80GB HBM3
#  Rank  4 Group  0 Pid  41822 on hgx-h100-07 device  4 [0000:9a:00] NVIDIA H100 80GB HBM3
#  Rank  5 Group  0 Pid  41822 on hgx-h100-07 device  5 [0000:ab:00] NVIDIA H100 80GB HBM3
#  Rank  6 Group  0 Pid  41822 on hgx-h100-07 device  6 [0000:ba:00] NVIDIA H100 80GB HBM3
#  Rank  7 Group  0 Pid  41822 on hgx-h100-07 device  7 [0000:db:00] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
  1073741824     268435456     float     sum      -1   4679.2  229.47  401.57       0   4672.5  229.80  402.15       0
  2147483648     536870912     float     sum      -1   9273.1  231.58  405.27       0   9266.8  231.74  405.55       0
  4294967296    1073741824     float     sum      -1    18433  233.00  407.75       0    18421  233.16  408.03       0
  8589934592    2147483648     float     sum      -1    36790  233.48  408.59    1024    36772  233.60  408.80    2048
 17179869184    4294967296     float     sum      -1    73521  233.67  408.92   12288    73490  233.77  409.09   13312
# Out of bounds values : 4 FAILED
# Avg bus bandwidth    : 406.57
#
# Collective test concluded: all_reduce_perf
"""


P12 = """\
user@epyc-lab:~$ ip addr
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
    inet 127.0.0.1/8 scope host lo
       valid_lft forever preferred_lft forever
2: eno1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000
    link/ether 3c:ec:ef:1a:2b:3c brd ff:ff:ff:ff:ff:ff
    altname enp65s0f0np0
    inet 192.168.1.23/24 brd 192.168.1.255 scope global dynamic noprefixroute eno1np0
       valid_lft 85612sec preferred_lft 85612sec
3: eno2np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000
    link/ether 3c:ec:ef:1a:2b:3d brd ff:ff:ff:ff:ff:ff
    altname enp65s0f1np1
    inet 192.168.1.24/24 brd 192.168.1.255 scope global dynamic noprefixroute eno2np1
       valid_lft 85610sec preferred_lft 85610sec
4: enp129s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000
    link/ether b8:ce:f6:4d:5e:6f brd ff:ff:ff:ff:ff:ff
    inet 192.168.1.31/24 brd 192.168.1.255 scope global dynamic noprefixroute enp129s0f0np0
       valid_lft 85599sec preferred_lft 85599sec
5: docker0: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 qdisc noqueue state DOWN group default
    link/ether 02:42:9a:bc:de:f0 brd ff:ff:ff:ff:ff:ff
    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0
       valid_lft forever preferred_lft forever
"""


P13 = """\
- **GPU 0:** NVIDIA GeForce RTX 5090 | 32607 MiB | driver 580.126.20 | VBIOS 98.02.2E.00.B1 | persistence=Enabled
  - **Power:** limit=575.00 W (default=575.00 W, max=600.00 W) | current_draw=6.27 W
  - **PCIe:** x16 lanes negotiated (GPU max x16, Gen up to 5) | bus 00000000:01:00.0
- **GPU 1:** NVIDIA GeForce RTX 5090 | 32607 MiB | driver 580.126.20 | VBIOS 98.02.2E.40.7D | persistence=Enabled
  - **Power:** limit=575.00 W (default=575.00 W, max=600.00 W) | current_draw=1.39 W
  - **PCIe:** x8 lanes negotiated (GPU max x16, Gen up to 5) | bus 00000000:41:00.0 ⚠ slot is narrower than GPU capability — affects load + all-reduce bandwidth
- **GPU 2:** NVIDIA GeForce RTX 4060 Ti | 16380 MiB | driver 580.126.20 | VBIOS 95.06.18.00.A1 | persistence=Enabled
  - **Power:** limit=165.00 W (default=165.00 W, max=165.00 W) | current_draw=4.10 W
  - **PCIe:** x8 lanes negotiated (GPU max x8, Gen up to 4) | bus 00000000:81:00.0
"""


P14 = """\
root@inference-01:~# free -g
               total        used        free      shared  buff/cache   available
Mem:             1007         21         975           0          10         985
Swap:              0           0           0
root@inference-01:~# cp -r /mnt/nfs/models/Llama-3.1-405B-Instruct-FP8 /dev/shm/
root@inference-01:~# free -g
               total        used        free      shared  buff/cache   available
Mem:             1007         22         568         406         416         578
Swap:              0           0           0
root@inference-01:~# vllm serve /dev/shm/Llama-3.1-405B-Instruct-FP8 --tensor-parallel-size 8 > vllm.log 2>&1 &
root@inference-01:~# free -g
               total        used        free      shared  buff/cache   available
Mem:             1007         61         529         406         416         539
Swap:              0           0           0
"""


P15 = """\
node01:1204:1204 [0] NCCL INFO Bootstrap : Using ib0:192.168.100.11<0>
node01:1204:1204 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory
node01:1204:1204 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation
node01:1204:1204 [0] NCCL INFO cudaDriverVersion 12040
NCCL version 2.20.5+cuda12.4
node01:1204:1290 [0] NCCL INFO Failed to open libibverbs.so[.1]
node01:1204:1290 [0] NCCL INFO NET/Socket : Using [0]ib0:192.168.100.11<0>
node01:1204:1290 [0] NCCL INFO Using non-device net plugin version 0
node01:1204:1290 [0] NCCL INFO Using network Socket
node01:1204:1290 [0] NCCL INFO comm 0x55e4a1c0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1d2e3f4a5b6c7d8e - Init START
node01:1204:1290 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15
node01:1204:1290 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM
node01:1211:1297 [7] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/Socket/0
node01:1204:1290 [0] NCCL INFO Channel 00/0 : 15[7] -> 0[0] [receive] via NET/Socket/0
node01:1204:1290 [0] NCCL INFO Connected all rings
node01:1204:1290 [0] NCCL INFO comm 0x55e4a1c0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1d2e3f4a5b6c7d8e - Init COMPLETE
"""


P16 = """\
$ nvidia-smi topo -m
	GPU0	GPU1	CPU Affinity	NUMA Affinity	GPU NUMA ID
GPU0	 X 	SYS	0-19,40-59	0		N/A
GPU1	SYS	 X 	20-39,60-79	1		N/A

$ ./simpleP2P
[./simpleP2P] - Starting...
Checking for multiple GPUs...
CUDA-capable device count: 2

Checking GPU(s) for support of peer to peer memory access...
> Peer access from NVIDIA RTX A4000 (GPU0) -> NVIDIA RTX A4000 (GPU1) : Yes
> Peer access from NVIDIA RTX A4000 (GPU1) -> NVIDIA RTX A4000 (GPU0) : Yes
Enabling peer access between GPU0 and GPU1...
Allocating buffers (64MB on GPU0, GPU1 and CPU Host)...
Creating event handles...
cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 1.94GB/s
Preparing host buffer and memcpy to GPU0...
Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...
Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...
Copy data back to host from GPU0 and verify results...
Disabling peer access...
Shutting down...
Test passed
"""


P17 = """\

ndv4-node0:31207:31207 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>
ndv4-node0:31207:31207 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/microsoft/ndv4-topo.xml
ndv4-node0:31207:31207 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /opt/microsoft/ndv4-graph.xml
NCCL version 2.18.3+cuda12.2
ndv4-node0:31207:31290 [0] NCCL INFO NET/IB : Using [0]mlx5_ib0:1/IB [1]mlx5_ib1:1/IB [2]mlx5_ib2:1/IB [3]mlx5_ib3:1/IB [4]mlx5_ib4:1/IB [5]mlx5_ib5:1/IB [6]mlx5_ib6:1/IB [7]mlx5_ib7:1/IB ; OOB eth0:10.0.0.4<0>
ndv4-node0:31207:31290 [0] NCCL INFO Using network IB
ndv4-node0:31207:31290 [0] NCCL INFO comm 0x55d0c8e0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 100000 commId 0x8a3f2e1d0c9b7a65 - Init START
ndv4-node0:31207:31290 [0] NCCL INFO Loading graph from file /opt/microsoft/ndv4-graph.xml

ndv4-node0:31207:31290 [0] graph/search.cc:703 NCCL WARN XML Import Channel : dev 72057594037927938 not found.
ndv4-node0:31207:31290 [0] NCCL INFO graph/search.cc:733 -> 2
ndv4-node0:31207:31290 [0] NCCL INFO graph/search.cc:740 -> 2
ndv4-node0:31207:31290 [0] NCCL INFO graph/search.cc:769 -> 2
ndv4-node0:31207:31290 [0] NCCL INFO init.cc:876 -> 2
ndv4-node0:31207:31290 [0] NCCL INFO init.cc:1396 -> 2
RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
"""


P18 = """\
[root@c6-node ~]# free -m -o
             total       used       free     shared    buffers     cached
Mem:         30104      29622        482      13312        112      18520
Swap:            0          0          0
"""

# ------------------------------------------------------------------ free: shared memory that rose and stayed


def test_shared_memory_given_back_between_sleeps_is_no_held_memory():
    """vllm-project/vllm#16663 (https://github.com/vllm-project/vllm/issues/16663), a fixed build: free -g before vLLM,
    after /sleep (49), after /wake_up (0: released), after /sleep again (49): the third output shows it came back."""
    sections = _kind(P04, "free", host="other")
    assert len(sections) == 4 and "Shared memory" not in _all(sections) and _worst(sections) == "info"


def test_free_of_three_machines_over_ssh_is_no_rise_on_one():
    """`ssh gpu-nodeN free -g` of three machines (shared 1 / 64 / 64 GiB): three hosts, not a before/after of one;
    and the `for h ...; echo "== $h"; ssh $h free -g` loop (units lost, hosts by `== host` headers) says no rise
    "from 0 MiB to 0 MiB" either."""
    for text in (P07, P07.replace("$ ssh gpu-node", "$ ssh -t -p 22 root@gpu-node"), P06):
        sections = explain(text, host="other", nodes=3)
        assert "Shared memory" not in _all(sections) and "warn" not in [lv for s in sections for lv in levels(s)]


def test_the_same_three_outputs_of_one_prompt_host_still_warn():
    """The ssh paste's three outputs under one prompt host with wake_up between (vllm#16663's shape): the warning
    stays; without a release step shown, a note that says what would make it a fault."""
    one = P07.replace("$ ssh gpu-node1 free -g", "[root@gpu-node1 ~]# free -g").replace(
        "$ ssh gpu-node3 free -g", "[root@gpu-node1 ~]# curl -XPOST localhost:8000/wake_up\n[root@gpu-node1 ~]# free -g"
    ).replace("$ ssh gpu-node2 free -g", "[root@gpu-node1 ~]# free -g")  # (s39j: the step between the 2nd and last)
    sections = _kind(one, "free", host="other")
    assert "rose from 1.0 GiB to 64.0 GiB" in messages(sections[-1], "warn")
    quiet = one.replace("[root@gpu-node1 ~]# curl -XPOST localhost:8000/wake_up\n", "")
    sections = _kind(quiet, "free", host="other")
    assert "warn" not in levels(sections[-1]) and "a fault only if a step between" in messages(sections[-1], "info")


def test_a_model_copied_into_dev_shm_on_purpose_is_a_note_naming_the_copy():
    """A 405B model copied to /dev/shm (`cp -r ... /dev/shm/`) before `vllm serve /dev/shm/...`: shared memory rose
    to 406 GiB and stays, as meant: a note naming the paste's own copy, no sleep-mode warning."""
    sections = _kind(P14, "free", host="other")
    said = messages(sections[-1], "info")
    assert "warn" not in levels(sections[-1]) and "rose from 0 MiB to 406.0 GiB" in said and "`cp -r" in said
    assert "sleep mode" not in messages(sections[-1])


def test_old_free_without_the_buffers_line_is_not_quoted_as_having_one():
    """rfjakob/earlyoom#20 (https://github.com/rfjakob/earlyoom/issues/20) as `free -m -o` prints it (no `-/+
    buffers/cache` row): the warning stays (5.7 GiB really available of 29.4, no swap) but names free + buffers +
    cached, not a line the paste does not have."""
    [s] = _kind(P18, "free", host="other")
    said = messages(s, "warn")
    assert "Free + buffers + cached, the 18.7 GiB" in said and "The `-/+ buffers/cache` line's" not in said


# ------------------------------------------------------------------ NCCL: TCP beside RDMA-named interfaces


def test_ib_disabled_by_the_environment_then_a_cuda_oom_is_no_failed_rdma_lookup():
    """NCCL 2.14.3, `NCCL_IB_DISABLE set by environment to 1.`, NET/Socket over ib0, then `Cuda failure 'out of
    memory'`: the TCP finding is a warn naming NCCL_IB_DISABLE=1 (a choice), never "could not reach its devices"; the
    CUDA error keeps its own fail (https://github.com/NVIDIA/nccl/issues/207's shape)."""
    [s] = _kind(P01, "nccl-log", host="other", nodes=2)
    mixed = next(f for f in s.findings if f.message.startswith("Channels used several transports"))
    assert mixed.level == "warn" and "NCCL_IB_DISABLE=1 is set (the log says so)" in mixed.message
    assert "could not reach its devices" not in messages(s) and "fail" in levels(s)


def test_a_peer_exit_after_sockets_over_ipoib_keeps_the_transport_warn():
    """nccl#207's mixed shape (NET/IB sideband on ib0, NET/Socket between) plus a later `Connection closed by remote
    peer` / ncclRemoteError: the TCP finding stays the warn it is without the crash."""
    [s] = _kind(P02, "nccl-log", host="other", nodes=2)
    mixed = next(f for f in s.findings if f.message.startswith("Channels used several transports"))
    assert mixed.level == "warn" and "yet NCCL did not use them" in mixed.message
    assert "could not reach its devices" not in messages(s)


def test_failed_to_open_libibverbs_beside_sockets_over_ipoib_fails_naming_it():
    """NCCL 2.20.5 on an IPoIB host: `Failed to open libibverbs.so[.1]`, then NET/Socket over ib0 between machines:
    NCCL looked for the RDMA stack and could not open it (no rdma-core in the image): a fail that names it."""
    [s] = _kind(P15, "nccl-log", host="other", nodes=2)
    mixed = next(f for f in s.findings if f.message.startswith("Channels used several transports"))
    assert mixed.level == "fail" and "libibverbs" in mixed.message and "NCCL_IB_DISABLE=1, or" not in mixed.message


# ------------------------------------------------------------------ NCCL graph file


def test_graph_file_dev_not_found_names_a_communicator_smaller_than_the_machine():
    """Azure/azhpc-images#327 (https://github.com/Azure/azhpc-images/issues/327)'s line on an 8-GPU machine whose job
    runs 2 ranks (CUDA_VISIBLE_DEVICES=0,1): GPU 2 exists, it is only not in this communicator's topology; the fail
    and the fix (unset NCCL_GRAPH_FILE) stay, the cause names both readings."""
    sections = explain(P03, host="other", nodes=1)
    said = _all(sections)
    assert _worst(sections) == "fail" and "not among the GPUs NCCL's topology holds for this communicator" in said
    assert "CUDA_VISIBLE_DEVICES naming a subset" in said and "Unset NCCL_GRAPH_FILE" in said
    assert "which this machine's topology does not have" not in said


def test_graph_file_dev_as_a_topology_id_is_decoded_to_its_system_and_gpu():
    """NCCL's topology id (system << 56 + device) in `XML Import Channel : dev 72057594037927938 not found.`: GPU 2
    of system 1, said so, not "GPU 72057594037927938"."""
    said = _all(explain(P17, host="other", nodes=2))
    assert "GPU 2 of system 1" in said and "GPU 72057594037927938," not in said


# ------------------------------------------------------------------ GPUs, PCIe and P2P


def test_a_gen2_card_p2p_rate_is_a_note_naming_its_own_link():
    """NVIDIA/cuda-samples p2pBandwidthLatencyTest on two Tesla K20m (PCIe Gen2 x16), only the P2P=Enabled
    matrices: 5.83 GB/s one way is that card's full link, so a note naming its generation, not the Gen3 x8 warning;
    the same matrices labelled A100 keep the warning."""
    [s] = _kind(P09, "p2p-bandwidth", host="other")
    assert "warn" not in levels(s) and "PCIe Gen2 x16" in messages(s, "info")
    [s] = _kind(P09.replace("Tesla K20m", "NVIDIA A100-PCIE-40GB"), "p2p-bandwidth", host="other")
    assert "slow for P2P between two compute GPUs" in messages(s, "warn")


def test_a_rig_report_card_narrowed_alone_beside_a_native_x8_card_warns():
    """local-inference club-3090#37's rig report shape: GPU0 x16 of x16, GPU1 x8 of x16 (the script's own ⚠), GPU2
    an x8 card at x8: no x8/x8 desktop split (GPU0 runs x16); GPU1 alone is narrowed, a warning."""
    sections = explain(P13, host="other")
    said = _all(sections)
    assert "GPU1 (NVIDIA GeForce RTX 5090) runs on PCIe x8 of its x16" in "\n".join(
        messages(s, "warn") for s in sections)
    assert "desktop CPU splits its 16 graphics lanes" not in said


def test_simplep2p_of_another_host_does_not_clear_this_hosts_sys_pair():
    """NVIDIA/cuda-samples#284's shape split over two hosts: `nvidia-smi topo -m` on gpu-a (SYS, NUMA 0/1) and
    simpleP2P on gpu-b (Test passed): gpu-a's SYS pair keeps its warnings."""
    [topo] = _kind(P10, "nvidia-smi-topo", host="other")
    assert "path SYS" in messages(topo, "warn") and "different NUMA nodes" in messages(topo, "warn")


def test_simplep2p_verified_but_slow_across_sys_keeps_the_warnings_and_quotes_the_rate():
    """Two RTX A4000 on NUMA 0/1 (SYS); simpleP2P Yes/Yes, Test passed, but `cudaMemcpyPeer ... 1.94GB/s`: P2P works
    at the slow path's speed, so the SYS warning stays and simpleP2P's own finding warns with the rate."""
    [topo] = _kind(P16, "nvidia-smi-topo", host="other")
    [p2p] = _kind(P16, "simple-p2p", host="other")
    assert "path SYS" in messages(topo, "warn")
    assert "1.94 GB/s" in messages(p2p, "warn") and "ok" not in levels(p2p)


# ------------------------------------------------------------------ ip addr, nccl-tests


def test_three_np_ports_dhcp_into_one_home_lan_warn():
    """`ip addr` on a lab box: eno1np0, eno2np1, enp129s0f0np0 (names bnxt_en and ice give too), MTU 1500, DHCP
    leases in 192.168.1.0/24: the ordinary routing ambiguity (a warn), not a cloud multi-rail design."""
    [s] = _kind(P12, "ip-addr", host="other")
    said = messages(s, "warn")
    assert "3 interfaces share the subnet 192.168.1.0/24" in said and "multi-rail" not in messages(s)


def test_wrong_rows_past_a_correct_4_gib_row_in_a_current_nccl_tests_name_no_size_edge():
    """nccl-tests 2.17.6 (prints its version: long after nccl-tests#37's fix), all_reduce 1G..16G on 8x H100: the
    exactly-4 GiB row is right, 8 and 16 GiB wrong: no 32-bit edge to blame; the fail stays, the note goes."""
    [s] = _kind(P11, "nccl-tests", host="other", nodes=1)
    assert "fail" in levels(s) and "32-bit" not in messages(s) and "4 GiB or more" not in messages(s)
    old = P11.replace("# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803\n", "")
    [s] = _kind(old, "nccl-tests", host="other", nodes=1)
    assert "32-bit" not in messages(s)  # (the correct 4 GiB row alone rules the edge out)


# ------------------------------------------------------------------ outside the new rules


def test_a_command_whose_output_went_to_a_file_is_no_error_but_a_note_naming_the_file():
    """`vllm serve ... > vllm.log 2>&1 &` in the /dev/shm paste printed nothing here because its output went to
    vllm.log: a note naming the file to tail, not "ERROR the command printed nothing"; a bare command that printed
    nothing keeps the error."""
    [s] = [x for x in explain(P14, host="other") if x.command and x.command.startswith("vllm serve")]
    assert s.error is None and "sends its output to vllm.log" in messages(s, "info")
    bare = P14.replace(" > vllm.log 2>&1 &", "")
    [s] = [x for x in explain(bare, host="other") if x.command and x.command.startswith("vllm serve")]
    assert s.error == "the command printed nothing"


def test_plain_free_numbers_too_small_for_kib_are_said_as_printed_not_as_0_gib():
    """The `for h ...; ssh $h free -g` loop's outputs carry no command line of their own: read as KiB the machines
    would have 0.0 GiB; said as printed (458 of 503, 91%) with the unit named as unknown; a KiB-sized total stays in
    GiB."""
    sections = _kind(P06, "free", host="other", nodes=3)
    said = messages(sections[0], "info")
    assert "458 of 503 (91%)" in said and "0.0 GiB" not in said
    kib = ("              total        used        free      shared  buff/cache   available\n"
           "Mem:      127535616    20000000    90000000      100000    17535616   105000000\n")
    assert "GiB of 121.6 GiB" in messages(_kind(kib, "free", host="other")[0])
