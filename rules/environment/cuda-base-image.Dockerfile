# ruleid: cuda-base-image
FROM nvidia/cuda:12.1.0-cudnn8-devel-ubuntu22.04 AS build
RUN pip install torch
# ruleid: cuda-base-image
FROM pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
# ok: cuda-base-image
FROM python:3.11-slim
