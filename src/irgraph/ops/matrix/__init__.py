"""Ops of OpenVINO's 'matrix' spec category."""
